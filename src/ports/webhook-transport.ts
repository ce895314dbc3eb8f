/** One POST of a webhook; the transport neither signs nor retries: the dispatcher decides, the rows remember. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The whole attempt — connecting, sending, the answer — must end within this (WEBHOOK_TIMEOUT). */
  readonly timeoutMs: number
  /** Aborts the attempt early (shutdown); the result then has `aborted: true`. */
  readonly signal?: AbortSignal
}

export interface WebhookResponse {
  /** The answer's status code, null when there was none (timeout, refused address, network error). */
  readonly statusCode: number | null
  /** From the start of the attempt to the answer (or to the failure). */
  readonly latencyMs: number
  /** Why there was no answer, for the delivery log; null when there was one. Never contains secrets. */
  readonly error: string | null
  /** The kind of failure when there was no answer: the address guard refused, the time ran out, or the network. */
  readonly failure: 'refused' | 'timeout' | 'network' | null
  /** True when `signal` ended the attempt: it must not count as an attempt. */
  readonly aborted: boolean
}

/**
 * Sends webhooks over HTTP. The adapter refuses loopback, private, link-local and other non-public addresses
 * — judged on the address each connection actually uses — unless the operator allows them (docs/webhooks.md#addresses), and
 * never follows redirects (a 3xx is an answer like any other non-2xx).
 */
export interface WebhookTransport {
  send(request: WebhookRequest): Promise<WebhookResponse>
  /** Closes idle connections; in-flight sends are not affected. */
  close(): Promise<void>
}

/** Standard Webhooks signing (HMAC-SHA256), behind a port: the app composes headers, the adapter does crypto. */
export interface WebhookSigner {
  /**
   * The `webhook-signature` header: `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>` for each secret,
   * space-separated (several during a rotation). Each secret is `whsec_<base64 key>`; the decoded key signs.
   */
  signature(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string
}
