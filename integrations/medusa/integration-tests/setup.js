// Medusa's test runner reads the PostgreSQL server from DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD and creates its own
// databases there (the role needs CREATEDB). CI gives the project's TEST_DATABASE_URL: split it into those.
const url = process.env.TEST_DATABASE_URL
if (url !== undefined && url !== '') {
  const u = new URL(url)
  // 'localhost', not 127.0.0.1: the runner turns SSL on for any other host name
  process.env.DB_HOST = u.hostname === '127.0.0.1' ? 'localhost' : u.hostname
  process.env.DB_PORT = u.port || '5432'
  process.env.DB_USERNAME = decodeURIComponent(u.username)
  process.env.DB_PASSWORD = decodeURIComponent(u.password)
}
const { MetadataStorage } = require('@medusajs/framework/mikro-orm/core')
MetadataStorage.clear()
