// Crash recovery on a real Postgres server: a SIGKILLed run's row is recorded abandoned by
// another process after its lease and re-run (the cases are in _crash_cases.ts).
import { postgresBackend } from "./_backends.ts";
import { crashCases } from "./_crash_cases.ts";

crashCases(postgresBackend);
