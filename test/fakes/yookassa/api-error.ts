import { randomUUID } from 'node:crypto'

/** A refusal as YooKassa's API words it (https://yookassa.ru/developers/using-api/response-handling/response-codes). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly parameter?: string,
  ) {
    super(description)
  }

  json(): Record<string, unknown> {
    return {
      type: 'error',
      id: randomUUID(),
      code: this.code,
      description: this.description,
      ...(this.parameter === undefined ? {} : { parameter: this.parameter }),
    }
  }
}
