//! New store files from an image of the current schema, instead of migrations run on each file.
//!
//! Running the migrations on a new file (a transaction of some forty statements, written to the
//! WAL and later checkpointed) was most of the time to start a fresh service (BENCHMARKS.md,
//! "Findings"), and a test suite that starts one per test pays it each time. So the migrations
//! run once per process on a database in memory, by the same code that prepares a new file
//! ([`super::schema::prepare`]), and each new store is that image written in one call. A
//! store opened afterwards finds its `user_version` current and runs no migration. An image is
//! never kept on disk or in the repository: it is always what this build's migrations make.

use super::schema::prepare;
use super::{Durability, StoreError, internal};
use rusqlite::{Connection, MAIN_DB};
use std::io::Write as _;
use std::path::Path;
use std::sync::OnceLock;

/// Offsets of the file format's read and write versions in a database header: 1 for a rollback
/// journal, 2 for WAL (<https://www.sqlite.org/fileformat2.html#file_format_version_numbers>).
const FORMAT_VERSIONS: std::ops::Range<usize> = 18..20;

/// The image of an empty store of the current schema, made on first use.
fn image() -> Result<&'static [u8], StoreError> {
    static IMAGE: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    IMAGE
        .get_or_init(|| make_image().map_err(|error| error.to_string()))
        .as_deref()
        .map_err(|error| internal(format!("making the empty store's image: {error}")))
}

fn make_image() -> Result<Vec<u8>, StoreError> {
    let mut connection = Connection::open_in_memory()?;
    // Nothing in memory is flushed; the durability only says not to try.
    prepare(&mut connection, Durability::TestOnly)?;
    let mut bytes = connection.serialize(MAIN_DB)?.to_vec();
    // A database in memory cannot be in WAL mode; marked so here, a store opens in WAL mode
    // at once, instead of switching on its first open, a write with its own journal (and its
    // own flushes for a durable store).
    bytes
        .get_mut(FORMAT_VERSIONS)
        .ok_or_else(|| internal("the image has no header"))?
        .fill(2);
    Ok(bytes)
}

/// Writes the empty store's image at `path` unless a database (or its WAL) is already there;
/// true when it wrote one. With `flush`, the file reaches the disk before it takes its name
/// (written beside it, flushed, renamed, the directory flushed), so a crash leaves either no
/// store or the whole image, never a torn file a restart would refuse.
pub(super) fn create_if_missing(path: &Path, flush: bool) -> Result<bool, StoreError> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    // Not following links: the caller has refused any among the store's files.
    let has_content = |file: &Path| std::fs::symlink_metadata(file).is_ok_and(|m| m.len() > 0);
    // A database file of 0 bytes with a WAL holds what the WAL holds: not a new store.
    if has_content(path) || has_content(Path::new(&wal)) {
        return Ok(false);
    }
    let image = image()?;
    let cannot = |what: &str, error: std::io::Error| {
        internal(format!("cannot {what} {}: {error}", path.display()))
    };
    let mut staged = path.as_os_str().to_owned();
    staged.push(".new");
    let staged = Path::new(&staged);
    let target = if flush { staged } else { path };
    let mut file = crate::datadir::open_own_file(
        target,
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true),
    )
    .map_err(internal)?;
    file.write_all(image).map_err(|e| cannot("write", e))?;
    if flush {
        file.sync_all().map_err(|e| cannot("flush", e))?;
        std::fs::rename(staged, path).map_err(|e| cannot("name", e))?;
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::File::open(parent)
            .and_then(|dir| dir.sync_all())
            .map_err(|e| cannot("flush the directory of", e))?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each schema object's type, name and SQL.
    type Schema = Vec<(String, String, Option<String>)>;

    /// What a connection sees of a database: its schema, as SQLite keeps it, and the settings
    /// that live in the file.
    fn shape(path: &Path) -> (Schema, Vec<String>) {
        let connection = Connection::open(path).expect("open");
        let mut statement = connection
            .prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name")
            .expect("schema");
        let schema = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("schema rows");
        let settings = [
            "user_version",
            "journal_mode",
            "auto_vacuum",
            "page_size",
            "encoding",
            "integrity_check",
        ]
        .iter()
        .map(|name| {
            let value: rusqlite::types::Value = connection
                .query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
                .expect(name);
            format!("{name} = {value:?}")
        })
        .collect();
        (schema, settings)
    }

    #[test]
    fn a_store_from_the_image_is_the_store_the_migrations_make_on_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let migrated = dir.path().join("migrated.sqlite3");
        prepare(
            &mut Connection::open(&migrated).expect("open"),
            Durability::Full,
        )
        .expect("migrate");
        let written = dir.path().join("written.sqlite3");
        assert!(create_if_missing(&written, true).expect("write the image"));
        let mut connection = Connection::open(&written).expect("open");
        prepare(&mut connection, Durability::Full).expect("prepare");
        drop(connection);
        let (schema, settings) = shape(&written);
        assert_eq!(
            (&schema, &settings),
            (&shape(&migrated).0, &shape(&migrated).1)
        );
        assert!(
            settings.contains(&"journal_mode = Text(\"wal\")".to_owned()),
            "{settings:?}"
        );
        assert!(
            settings.contains(&"auto_vacuum = Integer(2)".to_owned()),
            "{settings:?}"
        );
        assert!(
            !dir.path().join("written.sqlite3.new").exists(),
            "renamed into place"
        );
    }

    #[test]
    fn an_existing_store_is_never_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("courier.sqlite3");
        assert!(create_if_missing(&path, false).expect("new"));
        Connection::open(&path)
            .expect("open")
            .execute_batch("CREATE TABLE kept (x)")
            .expect("write");
        assert!(!create_if_missing(&path, true).expect("existing"));
        // A new file of 0 bytes whose content is all in its WAL is a store too.
        let empty = dir.path().join("empty.sqlite3");
        std::fs::write(&empty, b"").expect("empty file");
        std::fs::write(dir.path().join("empty.sqlite3-wal"), b"frames").expect("wal");
        assert!(!create_if_missing(&empty, false).expect("wal only"));
        let names: Vec<String> = shape(&path)
            .0
            .into_iter()
            .map(|(_, name, _)| name)
            .collect();
        assert!(names.contains(&"kept".to_owned()), "{names:?}");
    }
}
