// Dead and paused nodes (SIGKILL, SIGSTOP/SIGCONT) with default lease settings on a real
// Postgres server (the cases are in _lease_cases.ts).
import { postgresBackend } from "./_backends.ts";
import { leaseCases } from "./_lease_cases.ts";

leaseCases(postgresBackend);
