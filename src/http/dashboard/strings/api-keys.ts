/** The API keys page's strings, English and Russian (docs/dashboard.md#api-keys). */
import type { Lang } from '../../views/i18n.js'

const en = {
  title: 'API keys',
  intro:
    'Your shop sends a key in the X-Api-Key header of every API request. Keep several to rotate without downtime: create a new one, deploy it, then revoke the old one.',
  keys: 'Keys',
  none: 'There are no keys yet.',
  name: 'Name',
  unnamed: 'unnamed',
  prefix: 'Starts with',
  created: 'Created',
  lastUsed: 'Last used',
  never: 'never',
  status: 'Status',
  active: 'active',
  revokedAt: 'revoked',
  revoke: 'Revoke',
  revokeLabel: 'Revoke the key',
  create: 'Create a key',
  keyName: 'Name (for you to tell keys apart)',
  createButton: 'Create key',
  newKey: 'Your new API key. Copy it now: it is not shown again.',
  revoked: 'The key is revoked: requests that send it fail from now on.',
  viewerNote: 'Creating and revoking keys is for owners.',
  lastUsedNote: 'Last used is kept to the minute.',
}

export type ApiKeyStrings = typeof en

const ru: ApiKeyStrings = {
  title: 'API-ключи',
  intro:
    'Ваш магазин передаёт ключ в заголовке X-Api-Key каждого запроса к API. Держите несколько ключей, чтобы менять их без простоя: создайте новый, установите его, затем отзовите старый.',
  keys: 'Ключи',
  none: 'Ключей пока нет.',
  name: 'Название',
  unnamed: 'без названия',
  prefix: 'Начало ключа',
  created: 'Создан',
  lastUsed: 'Последнее использование',
  never: 'не использовался',
  status: 'Статус',
  active: 'действует',
  revokedAt: 'отозван',
  revoke: 'Отозвать',
  revokeLabel: 'Отозвать ключ',
  create: 'Новый ключ',
  keyName: 'Название (чтобы различать ключи)',
  createButton: 'Создать ключ',
  newKey: 'Ваш новый API-ключ. Скопируйте его сейчас: больше он показан не будет.',
  revoked: 'Ключ отозван: запросы с ним с этой минуты отклоняются.',
  viewerNote: 'Создавать и отзывать ключи могут только владельцы.',
  lastUsedNote: 'Время последнего использования — с точностью до минуты.',
}

export const API_KEY_STRINGS: Readonly<Record<Lang, ApiKeyStrings>> = { en, ru }
