import { describeProviderConformance } from './conformance.js'
import { yookassaDriver } from './drivers.js'

describeProviderConformance('yookassa', yookassaDriver)
