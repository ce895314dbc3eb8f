/** The admin API's own use cases (docs/admin-api.md); its merchant operations are those of ./accounts.ts. */
import { authenticateAdminToken } from '../../app/authenticate-admin-token.js'
import { createAdminToken } from '../../app/create-admin-token.js'
import type { AppDeps } from '../../app/deps.js'
import { listAdminTokens } from '../../app/list-admin-tokens.js'
import { revokeAdminToken } from '../../app/revoke-admin-token.js'

export function bindAdminUseCases(deps: AppDeps) {
  return {
    authenticate: authenticateAdminToken.bind(null, deps),
    createToken: createAdminToken.bind(null, deps),
    listTokens: listAdminTokens.bind(null, deps),
    revokeToken: revokeAdminToken.bind(null, deps),
  }
}
