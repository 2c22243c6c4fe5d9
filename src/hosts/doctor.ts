/**
 * What `todo-continuation doctor` asks of each host integration: the types
 * live in core (the store's own check uses them too); hosts take them here.
 */
export type { DoctorCheck, DoctorContext, DoctorFinding } from "../core/doctor.js";
