// Prints the Node.js version it runs on and its arguments (test/runtime/supported-node.test.ts).
process.stdout.write(JSON.stringify({ version: process.version, args: process.argv.slice(2) }))
