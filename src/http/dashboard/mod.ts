/** The dashboard: server-rendered pages, their routes and the timeline. */
export { registerDashboard } from "./routes.ts";
export { legend, timeline } from "./timeline.ts";
export type { TimelineInput } from "./timeline.ts";
export { plannedSpans } from "./_planned.ts";
