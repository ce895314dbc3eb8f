import { AppError, validationFailed } from '../domain/errors.js'
import type { MerchantId, UserId } from '../domain/ids.js'
import { normalizeEmail, parseMerchantRole, type Role, type User } from '../domain/user.js'
import { requireUuid } from './require-id.js'
import { insertLink, type IssuedLink, type UserDeps } from './user-records.js'
import { merchantNotFound } from './merchant-records.js'

export type InviteInput =
  | { readonly admin: true; readonly email: string }
  | { readonly admin?: false; readonly merchantId: string; readonly email: string; readonly role?: string | undefined }

/**
 * `user invite`: a new user (of a merchant, or an operator) and the one-time link, valid 24 h, where they set a
 * password (docs/dashboard.md#invitations). An address that has an account already is refused: its owner resets
 * the password instead.
 */
export async function inviteUser(deps: UserDeps, input: InviteInput): Promise<IssuedLink> {
  const email = normalizeEmail(input.email)
  if (email === undefined) throw validationFailed([{ field: 'email', message: 'must be an email address' }])
  let merchantId: MerchantId | null = null
  let role: Role = 'admin'
  if (input.admin !== true) {
    merchantId = requireUuid('merchant_id', input.merchantId) as MerchantId
    const r = parseMerchantRole(input.role ?? 'owner')
    if (r === undefined) throw validationFailed([{ field: 'role', message: 'must be owner or viewer' }])
    role = r
  }
  const user: User = {
    id: deps.newId() as UserId,
    merchantId,
    email,
    role,
    passwordHash: null,
    totpSecret: null,
    totpEnabledAt: null,
    passwordChangedAt: null,
    createdAt: deps.clock.now(),
  }
  return deps.store.transaction(async (tx) => {
    if (merchantId !== null && (await tx.merchants.findById(merchantId)) === undefined)
      throw merchantNotFound(merchantId)
    if ((await tx.users.insert(user)) === 'email_taken')
      throw new AppError(
        'validation_failed',
        'email: a user with this address exists; print a new link with user reset-password',
        [{ field: 'email', message: 'a user with this address exists' }],
      )
    return insertLink(tx, deps, user, 'invite')
  })
}
