/** The overview page's strings (docs/dashboard.md#overview), English and Russian with the same shape. */
import type { Lang } from '../../views/i18n.js'

const en = {
  title: 'Overview',
  period: 'Period',
  lastDays: (n: number) => `Last ${n} days`,
  window: (from: string, to: string) => `Invoices created ${from} – ${to} (UTC days, today included).`,
  statuses: 'Invoices by status',
  created: 'Created',
  status: { pending: 'Pending', hold: 'On hold', paid: 'Paid', failed: 'Failed', expired: 'Expired' },
  conversion: 'Conversion',
  conversionNote: 'Paid of the invoices created in the period.',
  none: '—',
  volume: 'Paid volume per day',
  volumeOf: (currency: string) => `Paid per day, ${currency}`,
  noPayments: 'No payments in this period.',
  day: 'Day',
  paid: 'Paid',
  totals: 'Totals per currency',
  totalsNote: 'Payments and refunds made in the period.',
  currency: 'Currency',
  payments: 'Payments',
  paidAmount: 'Paid',
  credited: 'Credited',
  refunded: 'Refunded',
  account: 'Your account',
}

export type OverviewStrings = typeof en

const ru: OverviewStrings = {
  title: 'Обзор',
  period: 'Период',
  lastDays: (n: number) => `Последние ${n} дней`,
  window: (from: string, to: string) => `Счета, созданные ${from} – ${to} (дни по UTC, включая сегодня).`,
  statuses: 'Счета по статусам',
  created: 'Создано',
  status: {
    pending: 'Ожидают оплаты',
    hold: 'Удержаны',
    paid: 'Оплачены',
    failed: 'Не оплачены',
    expired: 'Истекли',
  },
  conversion: 'Конверсия',
  conversionNote: 'Доля оплаченных среди счетов, созданных за период.',
  none: '—',
  volume: 'Оплаты по дням',
  volumeOf: (currency: string) => `Оплачено за день, ${currency}`,
  noPayments: 'За этот период оплат не было.',
  day: 'День',
  paid: 'Оплачено',
  totals: 'Итоги по валютам',
  totalsNote: 'Оплаты и возвраты, проведённые за период.',
  currency: 'Валюта',
  payments: 'Оплат',
  paidAmount: 'Оплачено',
  credited: 'Зачислено',
  refunded: 'Возвращено',
  account: 'Ваша учётная запись',
}

export const OVERVIEW_STRINGS: Readonly<Record<Lang, OverviewStrings>> = { en, ru }
