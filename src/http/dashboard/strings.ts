/** Every string of the dashboard's pages, English and Russian, in one place (docs/dashboard.md#pages). */
import type { Lang } from '../views/i18n.js'

const en = {
  dashboard: 'Dashboard',
  signIn: 'Sign in',
  email: 'Email',
  password: 'Password',
  newPassword: 'New password (at least 12 characters)',
  setPassword: 'Set password',
  setPasswordFor: 'Set the password of',
  passwordSet: 'Your password is set. Sign in with it.',
  wrongCredentials: 'The email address, password or code is not right.',
  throttled: 'Too many failed attempts. Wait 15 minutes and try again.',
  code: 'Code from your authenticator app, or a recovery code',
  verify: 'Continue',
  codeStep: 'Two-factor sign-in',
  linkGone: 'This link is unknown, used or expired. Ask for a new one.',
  signOut: 'Sign out',
  merchant: 'Merchant',
  role: 'Role',
  roles: { owner: 'owner', viewer: 'viewer', admin: 'operator' },
  allMerchants: 'every merchant',
  twoFactor: 'Two-factor sign-in',
  twoFactorOn: 'Two-factor sign-in is on.',
  twoFactorOffer: 'Turn on two-factor sign-in',
  enrolIntro: 'Scan the QR code with an authenticator app, or type in the key, then enter the code it shows.',
  qrAlt: 'QR code of the key for your authenticator app',
  key: 'Key',
  confirm: 'Turn on',
  wrongCode: 'That is not the code the app shows now. Try again.',
  recoveryIntro:
    'Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once without the app. They are not shown again.',
  back: 'Back to the dashboard',
  language: 'Language',
}

export type Strings = typeof en

const ru: Strings = {
  dashboard: 'Личный кабинет',
  signIn: 'Войти',
  email: 'Электронная почта',
  password: 'Пароль',
  newPassword: 'Новый пароль (не короче 12 символов)',
  setPassword: 'Задать пароль',
  setPasswordFor: 'Пароль для',
  passwordSet: 'Пароль задан. Войдите с ним.',
  wrongCredentials: 'Неверный адрес, пароль или код.',
  throttled: 'Слишком много неудачных попыток. Подождите 15 минут и попробуйте снова.',
  code: 'Код из приложения-аутентификатора или код восстановления',
  verify: 'Продолжить',
  codeStep: 'Двухфакторный вход',
  linkGone: 'Ссылка неизвестна, уже использована или истекла. Попросите новую.',
  signOut: 'Выйти',
  merchant: 'Магазин',
  role: 'Роль',
  roles: { owner: 'владелец', viewer: 'наблюдатель', admin: 'оператор' },
  allMerchants: 'все магазины',
  twoFactor: 'Двухфакторный вход',
  twoFactorOn: 'Двухфакторный вход включён.',
  twoFactorOffer: 'Включить двухфакторный вход',
  enrolIntro:
    'Отсканируйте QR-код приложением-аутентификатором или введите ключ вручную, затем введите код из приложения.',
  qrAlt: 'QR-код ключа для приложения-аутентификатора',
  key: 'Ключ',
  confirm: 'Включить',
  wrongCode: 'Это не тот код, что показывает приложение. Попробуйте ещё раз.',
  recoveryIntro:
    'Двухфакторный вход включён. Сохраните коды восстановления в надёжном месте: каждый позволяет войти один раз без приложения. Больше они не будут показаны.',
  back: 'В личный кабинет',
  language: 'Язык',
}

export const STRINGS: Readonly<Record<Lang, Strings>> = { en, ru }
