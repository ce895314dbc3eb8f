/** The team page's strings, English and Russian (docs/dashboard.md#team). */
import type { Lang } from '../../views/i18n.js'

const en = {
  title: 'Team',
  users: 'Users',
  email: 'Email',
  role: 'Role',
  roles: { owner: 'owner', viewer: 'viewer' },
  roleHelp: 'An owner can do everything; a viewer can look but not change anything.',
  twoFactor: 'Two-factor',
  on: 'on',
  off: 'off',
  lastSignIn: 'Last sign-in',
  never: 'not known',
  you: 'you',
  actions: 'Actions',
  changeRole: 'Change role',
  newRoleOf: 'New role of',
  remove: 'Remove',
  removeLabel: 'Remove',
  invite: 'Invite a user',
  inviteIntro:
    'There is no e-mail: inviting shows a one-time link here. Hand it to the person; it sets their password, works once and expires in 24 hours.',
  inviteButton: 'Invite',
  invited: 'Invited. Give this link to the user: it is not shown again.',
  viewerNote: 'Inviting, changing roles and removing users are for owners.',
}

export type TeamStrings = typeof en

const ru: TeamStrings = {
  title: 'Команда',
  users: 'Пользователи',
  email: 'Электронная почта',
  role: 'Роль',
  roles: { owner: 'владелец', viewer: 'наблюдатель' },
  roleHelp: 'Владелец может всё; наблюдатель только смотрит и ничего не меняет.',
  twoFactor: 'Двухфакторный вход',
  on: 'включён',
  off: 'выключен',
  lastSignIn: 'Последний вход',
  never: 'неизвестно',
  you: 'вы',
  actions: 'Действия',
  changeRole: 'Сменить роль',
  newRoleOf: 'Новая роль для',
  remove: 'Удалить',
  removeLabel: 'Удалить',
  invite: 'Пригласить пользователя',
  inviteIntro:
    'Почта не используется: приглашение показывает здесь одноразовую ссылку. Передайте её человеку: по ней он задаст пароль; она работает один раз и истекает через 24 часа.',
  inviteButton: 'Пригласить',
  invited: 'Приглашение создано. Передайте ссылку пользователю: больше она показана не будет.',
  viewerNote: 'Приглашать, менять роли и удалять пользователей могут только владельцы.',
}

export const TEAM_STRINGS: Readonly<Record<Lang, TeamStrings>> = { en, ru }
