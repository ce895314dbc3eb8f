import { describeProviderConformance } from './conformance.js'
import { sandboxDriver } from './drivers.js'

describeProviderConformance('sandbox', sandboxDriver)
