// Many prepared statements made, used and dropped, collected by forced garbage collections — some run from V8's
// own task queue, as collections under load are — then the process ends with a collection still due.
// better-sqlite3 12 aborted here on Node 24 (Statement::~Statement → node::RemoveEnvironmentCleanupHook: env is
// null in a collection run from the task queue). Run by statement-gc.test.ts:
// `node --expose-gc statement-gc.fixture.mjs natural|exit|close|close-exit`.
import Database from 'better-sqlite3'

const how = process.argv[2] ?? 'natural'
const dbs = [new Database(':memory:'), new Database(':memory:')]
for (const db of dbs) db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
let made = 0
const garbage = (db, tag) => {
  for (let i = 0; i < 1000; i++) db.prepare(`SELECT count(*) FROM t WHERE v = '${tag}-${i}'`).get()
  made += 1000
}
// statements dropped while the main module runs, and a collection queued as a task: what aborted 12 most often
garbage(dbs[0], 'start')
void globalThis.gc({ type: 'major', execution: 'async' })

const load = setInterval(() => dbs[0].prepare('SELECT count(*) AS n FROM t').get(), 1)
for (let round = 0; round < 10; round++) {
  for (const db of dbs) {
    for (let i = 0; i < 100; i++) {
      db.prepare(`INSERT INTO t (v) VALUES ('${round}-${i}')`).run()
      db.prepare(`SELECT v FROM t WHERE v = '${round}-${i}'`).get()
      made += 2
    }
  }
  void globalThis.gc({ type: 'major', execution: 'async' })
  await new Promise((resolve) => setTimeout(resolve, 20))
  globalThis.gc()
}
clearInterval(load)
garbage(dbs[1], 'end')
if (how === 'close' || how === 'close-exit') for (const db of dbs) db.close()
process.stdout.write(`made ${made} statements\n`)
void globalThis.gc({ type: 'major', execution: 'async' })
if (how === 'exit' || how === 'close-exit') process.exit(0)
