import { describeProviderConformance } from './conformance.js'
import { stripeDriver } from './drivers.js'

describeProviderConformance('stripe', stripeDriver)
