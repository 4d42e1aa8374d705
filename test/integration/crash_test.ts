// Crash recovery on libSQL (the cases are in _crash_cases.ts; postgres_crash_test.ts runs them on Postgres).
import { libsqlBackend } from "./_backends.ts";
import { crashCases } from "./_crash_cases.ts";

crashCases(libsqlBackend);
