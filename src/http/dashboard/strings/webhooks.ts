/** The webhooks page's strings, English and Russian (docs/dashboard.md#webhooks). */
import type { Lang } from '../../views/i18n.js'

const en = {
  title: 'Webhooks',
  log: 'Delivery log',
  logIntro: 'Every webhook sent to your endpoints, failures first, then the newest.',
  none: 'No webhooks have been sent yet.',
  invoice: 'Invoice',
  type: 'Event',
  status: 'Status',
  statuses: { pending: 'pending', succeeded: 'delivered', failed: 'failed' },
  attempts: 'Attempts',
  lastAnswer: 'Last answer',
  noAnswer: 'no answer',
  created: 'Created',
  next: 'Next page',
  first: 'First page',
  test: 'Send a test event',
  testIntro: 'Sends a signed webhook.test event to this address now, and shows what it answered. Nothing is retried.',
  url: 'Endpoint URL',
  send: 'Send test event',
  testResult: 'The endpoint answered',
  latency: 'in',
  error: 'Error',
  secret: 'Signing secret',
  secretIntro:
    'Rotating makes a new secret that signs from now on; the previous one keeps signing beside it for the grace period, so you can deploy the new one without rejecting webhooks.',
  graceUntil: 'The previous secret keeps signing until',
  noGrace: 'Only the current secret signs.',
  rotate: 'Rotate the secret',
  newSecret: 'Your new webhook secret. Copy it now: it is not shown again.',
  viewerNote: 'Sending test events and rotating the secret are for owners.',
}

export type WebhookStrings = typeof en

const ru: WebhookStrings = {
  title: 'Вебхуки',
  log: 'Журнал доставки',
  logIntro: 'Все вебхуки, отправленные на ваши адреса: сначала неудачные, затем самые новые.',
  none: 'Вебхуков ещё не было.',
  invoice: 'Счёт',
  type: 'Событие',
  status: 'Статус',
  statuses: { pending: 'в очереди', succeeded: 'доставлен', failed: 'не доставлен' },
  attempts: 'Попытки',
  lastAnswer: 'Последний ответ',
  noAnswer: 'нет ответа',
  created: 'Создан',
  next: 'Следующая страница',
  first: 'Первая страница',
  test: 'Тестовое событие',
  testIntro: 'Отправляет подписанное событие webhook.test на этот адрес сейчас и показывает ответ. Повторов не будет.',
  url: 'Адрес обработчика',
  send: 'Отправить тестовое событие',
  testResult: 'Обработчик ответил',
  latency: 'за',
  error: 'Ошибка',
  secret: 'Секрет подписи',
  secretIntro:
    'Новый секрет подписывает вебхуки с этой минуты; прежний продолжает подписывать рядом с ним в течение льготного периода, чтобы вы успели установить новый, не отклоняя вебхуки.',
  graceUntil: 'Прежний секрет подписывает до',
  noGrace: 'Подписывает только текущий секрет.',
  rotate: 'Сменить секрет',
  newSecret: 'Ваш новый секрет вебхуков. Скопируйте его сейчас: больше он показан не будет.',
  viewerNote: 'Отправлять тестовые события и менять секрет могут только владельцы.',
}

export const WEBHOOK_STRINGS: Readonly<Record<Lang, WebhookStrings>> = { en, ru }
