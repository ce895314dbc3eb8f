/** The payment page's languages (docs/payment-page.md): English is the default, also for `*` and for no header. */
export const LANGS = ['en', 'ru'] as const
export type Lang = (typeof LANGS)[number]
export const DEFAULT_LANG: Lang = 'en'

export function isLang(text: unknown): text is Lang {
  return typeof text === 'string' && (LANGS as readonly string[]).includes(text)
}

/**
 * The language a `?lang=` parameter asks for: its value, or the first of its values, that is one of ours. Language
 * tags are case-insensitive (RFC 5646 §2.1.1): `?lang=RU` is Russian.
 */
export function askedLang(query: string | readonly string[] | undefined): Lang | undefined {
  const values = typeof query === 'string' ? [query] : (query ?? [])
  for (const value of values) {
    const lower = value.toLowerCase()
    if (isLang(lower)) return lower
  }
  return undefined
}

// RFC 9110 §12.5.4: `tag;q=0.8`; q is 0–1 with at most three decimals. A malformed q drops that entry only.
const RANGE = /^([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)$/
const QVALUE = /^q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/i

/**
 * The page language: `?lang=` when it names a supported language, else the best `Accept-Language` range we
 * support (highest q first; among equal q, the order given), else English. `*` means "anything" → the default.
 */
export function negotiateLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  if (isLang(query)) return query
  if (acceptLanguage === undefined) return DEFAULT_LANG
  const ranges: { tag: string; q: number; at: number }[] = []
  acceptLanguage.split(',').forEach((part, at) => {
    const [rawTag = '', ...params] = part.split(';').map((s) => s.trim())
    if (!RANGE.test(rawTag)) return
    let q = 1
    for (const p of params) {
      const m = QVALUE.exec(p)
      if (m === null) return
      q = Number(m[1])
    }
    if (q > 0) ranges.push({ tag: rawTag.toLowerCase(), q, at })
  })
  ranges.sort((a, b) => b.q - a.q || a.at - b.at)
  for (const { tag } of ranges) {
    if (tag === '*') return DEFAULT_LANG
    const primary = tag.split('-')[0]
    if (isLang(primary)) return primary
  }
  return DEFAULT_LANG
}

export interface Messages {
  readonly pageTitle: (amount: string, merchant: string) => string
  readonly notFoundTitle: string
  readonly notFoundText: string
  readonly invoiceFrom: string
  readonly amountDue: string
  readonly amount: string
  readonly description: string
  readonly order: string
  readonly currency: string
  readonly status: string
  readonly timeLeft: string
  readonly payBefore: string
  readonly paidAt: string
  readonly dayUnit: string
  readonly scanQr: string
  readonly qrAlt: (amount: string) => string
  readonly checkStatus: string
  readonly statusName: Readonly<Record<'pending' | 'hold' | 'paid' | 'failed' | 'expired', string>>
  readonly statusText: Readonly<Record<'pending' | 'hold' | 'paid' | 'failed' | 'expired', string>>
  readonly backToShop: string
  readonly testMode: string
  /** The Pay button of a card acquirer's invoice. */
  readonly payAmount: (amount: string) => string
  /** Said when the acquirer refused to start the payment, or could not be reached. */
  readonly checkoutFailed: { readonly refused: string; readonly unavailable: string }
  /** Stablecoin (evm) invoices (docs/stablecoins.md#states). */
  readonly deposit: {
    readonly heading: string
    readonly network: string
    readonly token: string
    readonly address: string
    readonly exactAmount: string
    readonly copy: string
    readonly copied: string
    readonly onlyThisNetwork: string
    readonly seen: (k: number, n: number) => string
    readonly received: (amount: string, due: string) => string
  }
  readonly testModeText: string
  readonly simulateLegend: string
  /** Shown when a test-mode button's request was refused (followed by the service's reason). */
  readonly simulateFailed: string
  /** …when it got no answer at all (offline, connection dropped). */
  readonly simulateNoAnswer: string
  readonly pay: string
  readonly hold: string
  readonly decline: string
  readonly language: string
  readonly languageName: Readonly<Record<Lang, string>>
  readonly footer: string
}

export const MESSAGES: Readonly<Record<Lang, Messages>> = {
  en: {
    pageTitle: (amount, merchant) => `Pay ${amount} to ${merchant}`,
    notFoundTitle: 'Invoice not found',
    notFoundText: 'This payment link is not valid. Check the link, or ask the shop for a new one.',
    invoiceFrom: 'Invoice from',
    amountDue: 'Amount due',
    amount: 'Amount',
    description: 'Description',
    order: 'Order',
    currency: 'Currency',
    status: 'Status',
    timeLeft: 'Time left to pay',
    payBefore: 'Pay before',
    paidAt: 'Paid on',
    dayUnit: 'd',
    scanQr: 'Scan the QR code with your phone to pay.',
    deposit: {
      heading: 'Pay with a stablecoin',
      network: 'Network',
      token: 'Token contract',
      address: 'Send to',
      exactAmount: 'Exact amount',
      copy: 'Copy',
      copied: 'Copied',
      onlyThisNetwork: 'Send this token on this network only, to this address only: anything else is lost.',
      seen: (k, n) => `Payment seen: ${k} of ${n} confirmations.`,
      received: (amount, due) => `Received ${amount} of ${due}: send the rest to the same address.`,
    },
    qrAlt: (amount) => `QR code for paying ${amount}`,
    checkStatus: 'Refresh the status',
    statusName: {
      pending: 'Awaiting payment',
      hold: 'Payment authorised',
      paid: 'Payment received',
      failed: 'Payment declined',
      expired: 'Invoice expired',
    },
    statusText: {
      pending: 'Complete the payment before the time runs out.',
      hold: 'The funds are reserved and awaiting confirmation by the merchant. You can close this page.',
      paid: 'Thank you! Your payment was successful.',
      failed: 'The payment did not go through. No money has been charged.',
      expired: 'The time to pay this invoice has run out. It can no longer be paid.',
    },
    backToShop: 'Return to the shop',
    testMode: 'TEST MODE',
    payAmount: (amount) => `Pay ${amount}`,
    checkoutFailed: {
      refused: 'The payment service could not start this payment. Try again, or contact the shop.',
      unavailable: 'The payment service is not answering right now. Nothing was charged; try again in a minute.',
    },
    testModeText: 'Sandbox payments: no real money is charged.',
    simulateLegend: 'Simulate the payment result',
    simulateFailed: 'The test payment was not sent:',
    simulateNoAnswer: 'no answer from the payment service; check the connection and try again',
    pay: 'Pay',
    hold: 'Hold',
    decline: 'Decline',
    language: 'Language',
    languageName: { en: 'English', ru: 'Русский' },
    footer: 'Secure payment page',
  },
  ru: {
    pageTitle: (amount, merchant) => `Оплата ${amount} — ${merchant}`,
    notFoundTitle: 'Счёт не найден',
    notFoundText: 'Ссылка на оплату недействительна. Проверьте ссылку или попросите магазин прислать новую.',
    invoiceFrom: 'Счёт от',
    amountDue: 'К оплате',
    amount: 'Сумма',
    description: 'Назначение платежа',
    order: 'Заказ',
    currency: 'Валюта',
    status: 'Статус',
    timeLeft: 'Осталось времени на оплату',
    payBefore: 'Оплатить до',
    paidAt: 'Оплачено',
    dayUnit: 'д',
    scanQr: 'Отсканируйте QR-код телефоном, чтобы оплатить.',
    deposit: {
      heading: 'Оплата стейблкоином',
      network: 'Сеть',
      token: 'Контракт токена',
      address: 'Адрес для перевода',
      exactAmount: 'Точная сумма',
      copy: 'Копировать',
      copied: 'Скопировано',
      onlyThisNetwork:
        'Отправляйте только этот токен, только в этой сети и только на этот адрес: иначе средства пропадут.',
      seen: (k, n) => `Платёж получен: ${k} из ${n} подтверждений.`,
      received: (amount, due) => `Получено ${amount} из ${due}: отправьте остаток на тот же адрес.`,
    },
    qrAlt: (amount) => `QR-код для оплаты ${amount}`,
    checkStatus: 'Обновить статус',
    statusName: {
      pending: 'Ожидает оплаты',
      hold: 'Платёж авторизован',
      paid: 'Оплата получена',
      failed: 'Платёж отклонён',
      expired: 'Срок оплаты истёк',
    },
    statusText: {
      pending: 'Завершите оплату, пока не истекло время.',
      hold: 'Средства зарезервированы и ожидают подтверждения продавцом. Эту страницу можно закрыть.',
      paid: 'Спасибо! Платёж прошёл успешно.',
      failed: 'Платёж не прошёл. Деньги не списаны.',
      expired: 'Время на оплату этого счёта истекло. Оплатить его больше нельзя.',
    },
    backToShop: 'Вернуться в магазин',
    testMode: 'ТЕСТОВЫЙ РЕЖИМ',
    payAmount: (amount) => `Оплатить ${amount}`,
    checkoutFailed: {
      refused: 'Платёжный сервис не смог начать эту оплату. Попробуйте ещё раз или обратитесь в магазин.',
      unavailable: 'Платёжный сервис сейчас не отвечает. Деньги не списаны; попробуйте через минуту.',
    },
    testModeText: 'Платежи в песочнице: реальные деньги не списываются.',
    simulateLegend: 'Смоделировать результат оплаты',
    simulateFailed: 'Тестовый платёж не отправлен:',
    simulateNoAnswer: 'платёжный сервис не ответил; проверьте подключение и попробуйте ещё раз',
    pay: 'Оплатить',
    hold: 'Удержать',
    decline: 'Отклонить',
    language: 'Язык',
    languageName: { en: 'English', ru: 'Русский' },
    footer: 'Защищённая страница оплаты',
  },
}
