//! Pooled connections that keep their prepared statements: a statement is parsed once per
//! connection instead of once per call.
//!
//! The driver prepares every query given as text (a round trip to parse it, then one to run
//! it), and a request makes a few store calls, so half of a request's round trips to the
//! database were parses of the same few statements. Each pooled [`Connection`] therefore keeps
//! the statements it prepared, by their text, and the store's steps query through a
//! [`Session`] (the connection, or a transaction on it, with those statements). Prepared
//! statements belong to the connection, not to a transaction, so one prepared in a transaction
//! that rolled back stays usable; a connection that breaks takes its statements with it.

use postgres::types::ToSql;
use postgres::{Client, GenericClient, NoTls, Row, Statement};
use r2d2_postgres::PostgresConnectionManager;
use r2d2_postgres::r2d2::ManageConnection;
use std::collections::HashMap;

/// Statements one connection keeps at most. The store's texts are a few dozen, plus one per
/// combination of filters a list or bulk delete used; past this the cache starts over rather
/// than grow with whatever filters clients send.
const STATEMENTS: usize = 256;

/// A connection of the pool and the statements prepared on it.
pub(super) struct Connection {
    client: Client,
    statements: HashMap<String, Statement>,
}

/// The pool's manager: `r2d2_postgres`'s, with each connection's statements beside it.
pub(super) struct Manager(pub(super) PostgresConnectionManager<NoTls>);

impl ManageConnection for Manager {
    type Connection = Connection;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Connection, postgres::Error> {
        Ok(Connection {
            client: self.0.connect()?,
            statements: HashMap::new(),
        })
    }

    fn is_valid(&self, connection: &mut Connection) -> Result<(), postgres::Error> {
        self.0.is_valid(&mut connection.client)
    }

    fn has_broken(&self, connection: &mut Connection) -> bool {
        self.0.has_broken(&mut connection.client)
    }
}

impl Connection {
    /// The connection itself, as a session.
    pub(super) fn session(&mut self) -> Session<'_, Client> {
        Session {
            client: &mut self.client,
            statements: &mut self.statements,
        }
    }

    /// Runs `call` in one transaction of this connection, committed when it returns `Ok`.
    pub(super) fn in_transaction<T, E: From<postgres::Error>>(
        &mut self,
        call: impl FnOnce(&mut Session<'_, postgres::Transaction<'_>>) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut transaction = self.client.transaction()?;
        let value = call(&mut Session {
            client: &mut transaction,
            statements: &mut self.statements,
        })?;
        transaction.commit()?;
        Ok(value)
    }
}

/// What the store's steps query through: a connection or a transaction on it (`C`), with the
/// connection's prepared statements.
pub(super) struct Session<'a, C> {
    client: &'a mut C,
    statements: &'a mut HashMap<String, Statement>,
}

/// A statement's text (prepared once per connection and kept) or a statement already prepared.
pub(super) trait Sql {
    fn prepared<C: GenericClient>(
        &self,
        session: &mut Session<'_, C>,
    ) -> Result<Statement, postgres::Error>;
}

impl Sql for str {
    fn prepared<C: GenericClient>(
        &self,
        session: &mut Session<'_, C>,
    ) -> Result<Statement, postgres::Error> {
        if let Some(statement) = session.statements.get(self) {
            return Ok(statement.clone());
        }
        let statement = session.client.prepare(self)?;
        if session.statements.len() >= STATEMENTS {
            session.statements.clear();
        }
        session
            .statements
            .insert(self.to_owned(), statement.clone());
        Ok(statement)
    }
}

impl Sql for String {
    fn prepared<C: GenericClient>(
        &self,
        session: &mut Session<'_, C>,
    ) -> Result<Statement, postgres::Error> {
        self.as_str().prepared(session)
    }
}

impl Sql for Statement {
    fn prepared<C: GenericClient>(
        &self,
        _: &mut Session<'_, C>,
    ) -> Result<Statement, postgres::Error> {
        Ok(self.clone())
    }
}

/// The driver's calls, each on a kept statement.
impl<C: GenericClient> Session<'_, C> {
    /// The statement for `sql`, prepared on this connection once.
    pub(super) fn prepare(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        sql.prepared(self)
    }

    pub(super) fn query<S: Sql + ?Sized>(
        &mut self,
        sql: &S,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error> {
        let statement = sql.prepared(self)?;
        self.client.query(&statement, params)
    }

    pub(super) fn query_one<S: Sql + ?Sized>(
        &mut self,
        sql: &S,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, postgres::Error> {
        let statement = sql.prepared(self)?;
        self.client.query_one(&statement, params)
    }

    pub(super) fn query_opt<S: Sql + ?Sized>(
        &mut self,
        sql: &S,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, postgres::Error> {
        let statement = sql.prepared(self)?;
        self.client.query_opt(&statement, params)
    }

    pub(super) fn execute<S: Sql + ?Sized>(
        &mut self,
        sql: &S,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        let statement = sql.prepared(self)?;
        self.client.execute(&statement, params)
    }

    /// Statements without parameters, sent as text (nothing to keep).
    pub(super) fn batch_execute(&mut self, sql: &str) -> Result<(), postgres::Error> {
        self.client.batch_execute(sql)
    }
}
