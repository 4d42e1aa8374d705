// Leases with default settings on libSQL (the cases are in _lease_cases.ts;
// postgres_lease_test.ts runs them on Postgres).
import { libsqlBackend } from "./_backends.ts";
import { leaseCases } from "./_lease_cases.ts";

leaseCases(libsqlBackend);
