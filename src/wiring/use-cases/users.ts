/** Dashboard users: invitations, passwords, sign-in, sessions, two-factor (docs/dashboard.md). */
import { authenticateSession } from '../../app/authenticate-session.js'
import { changeUserRole } from '../../app/change-user-role.js'
import type { AppDeps } from '../../app/deps.js'
import { beginTotpEnrolment, confirmTotpEnrolment } from '../../app/enrol-totp.js'
import { inviteUser } from '../../app/invite-user.js'
import { purgeDashboardRecords } from '../../app/purge-dashboard-records.js'
import { listTeam } from '../../app/list-team.js'
import { removeUser } from '../../app/remove-user.js'
import { resetPassword } from '../../app/reset-password.js'
import { readLink, setPassword } from '../../app/set-password.js'
import { signIn } from '../../app/sign-in.js'
import { signOut } from '../../app/sign-out.js'
import { verifySecondFactor } from '../../app/verify-second-factor.js'

export function bindUserUseCases(deps: AppDeps) {
  return {
    invite: inviteUser.bind(null, deps),
    resetPassword: resetPassword.bind(null, deps),
    readLink: readLink.bind(null, deps),
    setPassword: setPassword.bind(null, deps),
    signIn: signIn.bind(null, deps),
    verifySecondFactor: verifySecondFactor.bind(null, deps),
    authenticate: authenticateSession.bind(null, deps),
    signOut: signOut.bind(null, deps),
    beginTotpEnrolment: beginTotpEnrolment.bind(null, deps),
    confirmTotpEnrolment: confirmTotpEnrolment.bind(null, deps),
    purge: purgeDashboardRecords.bind(null, deps),
    /** The dashboard's team page (docs/dashboard.md#team). */
    listTeam: listTeam.bind(null, deps),
    changeRole: changeUserRole.bind(null, deps),
    remove: removeUser.bind(null, deps),
  }
}
