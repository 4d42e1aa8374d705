// A child process that holds a real SQLite write lock: `BEGIN EXCLUSIVE` on the file,
// for the given milliseconds, then COMMIT. Prints "locked" once it holds the lock and
// "released" after. Usage: node --import tsx _lock_child.ts <path> <ms>
import Database from "libsql";

const [path = "", ms = "1000"] = process.argv.slice(2);
const db = new Database(path, { timeout: 10_000 });
db.exec("BEGIN EXCLUSIVE");
console.log("locked");
setTimeout(() => {
  db.exec("COMMIT");
  db.close();
  console.log("released");
}, Number(ms));
