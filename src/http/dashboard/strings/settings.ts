/** The settings page's strings, English and Russian (docs/dashboard.md#settings). */
import type { Lang } from '../../views/i18n.js'

const en = {
  title: 'Settings',
  shop: 'Shop',
  name: 'Name shown on the payment page',
  nameHelp: '1 to 200 characters.',
  service: 'Default service',
  serviceHelp: 'Used for invoices created without a service.',
  save: 'Save',
  saved: 'Settings saved.',
  viewerNote: 'Changing the settings is for owners.',
}

export type SettingsStrings = typeof en

const ru: SettingsStrings = {
  title: 'Настройки',
  shop: 'Магазин',
  name: 'Название на странице оплаты',
  nameHelp: 'От 1 до 200 символов.',
  service: 'Сервис по умолчанию',
  serviceHelp: 'Для счетов, созданных без указания сервиса.',
  save: 'Сохранить',
  saved: 'Настройки сохранены.',
  viewerNote: 'Менять настройки могут только владельцы.',
}

export const SETTINGS_STRINGS: Readonly<Record<Lang, SettingsStrings>> = { en, ru }
