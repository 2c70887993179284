//! New store files from an image of the current schema, instead of migrations run on each file.
//!
//! Running the migrations on a new file (a transaction of some forty statements, written to the
//! WAL and later checkpointed) was most of the time to start a fresh service, and running them
//! on a database in memory still cost `courier serve` about 8 million instructions, over half
//! of its work before the first answer (`bench/findings.md`, "`courier serve` to its first
//! answer"). So the image is made ahead of time, by the same code that prepares a new file
//! ([`super::schema::prepare`]), and committed beside this module: `empty-store.sqlite3`. The
//! test `tests::the_committed_image_is_what_the_migrations_make` fails when it is not, byte for
//! byte, what this build's migrations make, and rewrites it when run with
//! `COURIER_BLESS_IMAGE=1`. A store opened afterwards finds its `user_version` current and runs
//! no migration; an image a migration behind would still be migrated when opened, only slower.

use super::{StoreError, internal};
use std::io::Write as _;
use std::path::Path;

/// The image of an empty store of the current schema, in WAL mode.
///
/// Regenerate: `COURIER_BLESS_IMAGE=1 cargo test -p courier-service --lib the_committed_image`.
const IMAGE: &[u8] = include_bytes!("empty-store.sqlite3");

/// Offsets of the file format's read and write versions in a database header: 1 for a rollback
/// journal, 2 for WAL (<https://www.sqlite.org/fileformat2.html#file_format_version_numbers>).
const FORMAT_VERSIONS: std::ops::Range<usize> = 18..20;

/// The header's "version-valid-for" number and the library version that last wrote the file:
/// they change with the SQLite release, not with the schema, and any release reads the image.
#[cfg(test)]
const WRITER_VERSION: std::ops::Range<usize> = 92..100;

/// What this build's migrations make of an empty database, as the committed image must be.
#[cfg(test)]
fn make_image() -> Result<Vec<u8>, StoreError> {
    use rusqlite::{Connection, MAIN_DB};
    let mut connection = Connection::open_in_memory()?;
    // Nothing in memory is flushed; the durability only says not to try.
    super::schema::prepare(&mut connection, super::Durability::TestOnly)?;
    let mut bytes = connection.serialize(MAIN_DB)?.to_vec();
    // A database in memory cannot be in WAL mode; marked so here, a store opens in WAL mode
    // at once, instead of switching on its first open, a write with its own journal (and its
    // own flushes for a durable store).
    bytes
        .get_mut(FORMAT_VERSIONS)
        .ok_or_else(|| internal("the image has no header"))?
        .copy_from_slice(&WAL);
    Ok(bytes)
}

/// Rows written into a new store's image before it reaches the disk.
pub(super) type Seed<'a> = &'a dyn Fn(&rusqlite::Connection) -> Result<(), StoreError>;

/// The header's format versions of a database with a rollback journal, and of one in WAL mode.
const ROLLBACK: [u8; 2] = [1, 1];
const WAL: [u8; 2] = [2, 2];

/// The image with `seed`'s rows in it, in the database in memory that wrote them: the caller
/// writes it from there, so that the image is copied once, into SQLite's memory, and not again.
fn seeded_image(seed: Seed<'_>) -> Result<rusqlite::Connection, StoreError> {
    use std::io::Read as _;
    let mut connection = rusqlite::Connection::open_in_memory()?;
    // A database in memory keeps a rollback journal, if only in memory: read in as one, and
    // written out in WAL mode again by `create_if_missing`.
    let image = IMAGE[..FORMAT_VERSIONS.start]
        .chain(&ROLLBACK[..])
        .chain(&IMAGE[FORMAT_VERSIONS.end..]);
    connection.deserialize_read_exact(rusqlite::MAIN_DB, image, IMAGE.len(), false)?;
    seed(&connection)?;
    Ok(connection)
}

/// Writes the empty store's image at `path` (with `seed`'s rows, if any) unless a database (or
/// its WAL) is already there; true when it wrote one. With `flush`, the file reaches the disk
/// before it takes its name (written beside it, flushed, renamed, the directory flushed), so a
/// crash leaves either no store or the whole image, never a torn file a restart would refuse.
pub(super) fn create_if_missing(
    path: &Path,
    flush: bool,
    seed: Option<Seed<'_>>,
) -> Result<bool, StoreError> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    // Not following links: the caller has refused any among the store's files.
    let has_content = |file: &Path| std::fs::symlink_metadata(file).is_ok_and(|m| m.len() > 0);
    // A database file of 0 bytes with a WAL holds what the WAL holds: not a new store.
    if has_content(path) || has_content(Path::new(&wal)) {
        return Ok(false);
    }
    let seeded = seed.map(seeded_image).transpose()?;
    let serialized = seeded
        .as_ref()
        .map(|connection| connection.serialize(rusqlite::MAIN_DB))
        .transpose()?;
    let image: &[u8] = serialized.as_deref().unwrap_or(IMAGE);
    if image.len() < FORMAT_VERSIONS.end {
        return Err(internal("the image has no header"));
    }
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
    // In WAL mode whatever mode the image was seeded in.
    [
        &image[..FORMAT_VERSIONS.start],
        &WAL[..],
        &image[FORMAT_VERSIONS.end..],
    ]
    .iter()
    .try_for_each(|part| file.write_all(part))
    .map_err(|e| cannot("write", e))?;
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
    use crate::store::sqlite::Durability;
    use crate::store::sqlite::schema::prepare;
    use rusqlite::Connection;

    #[test]
    fn the_committed_image_is_what_the_migrations_make() {
        let made = make_image().expect("make the image");
        let mask = |bytes: &[u8]| {
            let mut bytes = bytes.to_vec();
            if let Some(version) = bytes.get_mut(WRITER_VERSION) {
                version.fill(0);
            }
            bytes
        };
        // Rewriting on request still fails when the image changed, so the variable left set
        // anywhere cannot turn this test into one that passes whatever the image is.
        if std::env::var_os("COURIER_BLESS_IMAGE").is_some() && mask(IMAGE) != mask(&made) {
            let path =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/sqlite/empty-store.sqlite3");
            std::fs::write(&path, &made).expect("write the image");
            panic!("rewrote {}: run the tests again", path.display());
        }
        assert!(
            mask(IMAGE) == mask(&made),
            "src/store/sqlite/empty-store.sqlite3 is not what the migrations make ({} bytes \
             committed, {} made); regenerate it: COURIER_BLESS_IMAGE=1 cargo test -p \
             courier-service --lib the_committed_image",
            IMAGE.len(),
            made.len()
        );
    }

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
        assert!(create_if_missing(&written, true, None).expect("write the image"));
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
        assert!(create_if_missing(&path, false, None).expect("new"));
        Connection::open(&path)
            .expect("open")
            .execute_batch("CREATE TABLE kept (x)")
            .expect("write");
        assert!(!create_if_missing(&path, true, None).expect("existing"));
        // A new file of 0 bytes whose content is all in its WAL is a store too.
        let empty = dir.path().join("empty.sqlite3");
        std::fs::write(&empty, b"").expect("empty file");
        std::fs::write(dir.path().join("empty.sqlite3-wal"), b"frames").expect("wal");
        assert!(!create_if_missing(&empty, false, None).expect("wal only"));
        let names: Vec<String> = shape(&path)
            .0
            .into_iter()
            .map(|(_, name, _)| name)
            .collect();
        assert!(names.contains(&"kept".to_owned()), "{names:?}");
    }
}
