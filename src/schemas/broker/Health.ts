/**
 * Health of the broker's components, as the administration endpoints report it.
 */
import { Schema } from "effect"

export const ServiceStatus = Schema.Literal("UP", "DOWN", "UNKNOWN")

export class ComponentState extends Schema.Class<ComponentState>("ComponentState")({
  serviceStatus: ServiceStatus,
  /** Whether the component was restarted since the broker started (a crashed worker replaced). */
  restarted: Schema.Boolean
}) {}

export class HealthRecords extends Schema.Class<HealthRecords>("HealthRecords")({
  serviceStates: Schema.Record({ key: Schema.String, value: ComponentState })
}) {}
