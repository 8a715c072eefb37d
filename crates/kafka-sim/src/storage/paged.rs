//! Files made of fixed-size pages: the "disk" every segment file lives on.
//!
//! A Kafka broker writes `.log`, `.index` and `.timeindex` files and leans on
//! the operating system's page cache (4 KiB pages) to serve them. The simulation
//! keeps the same picture: each broker owns a [`Storage`], a flat namespace of
//! named files (`first-0/00000000000000000000.log`), each a list of pages.
//! [`MemStorage`] is the in-memory backend; a browser-storage backend could be
//! added behind the same trait.
//!
//! Pages are shared copy-on-write (`Arc`), so cloning a whole broker (which the
//! timeline does to checkpoint the simulation) copies page *pointers*, not
//! bytes: a full page is written once and then shared by every checkpoint.
//!
//! # Error contract
//! Every method fails only on misuse: a file that does not exist, one that
//! already exists, or a read or write outside a file. The in-memory backend has
//! no other failure (no I/O errors, no space limit).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Default page size: 4 KiB, the x86-64 and ARM page size Kafka's page-cache
/// reasoning assumes.
pub const DEFAULT_PAGE_SIZE: u32 = 4096;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    NotFound(String),
    AlreadyExists(String),
    OutOfBounds {
        file: String,
        position: u64,
        len: u64,
        file_len: u64,
    },
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::NotFound(n) => write!(f, "no file named {n}"),
            StorageError::AlreadyExists(n) => write!(f, "a file named {n} already exists"),
            StorageError::OutOfBounds {
                file,
                position,
                len,
                file_len,
            } => write!(
                f,
                "{file}: {len} bytes at position {position} are outside the file ({file_len} bytes)"
            ),
        }
    }
}

impl std::error::Error for StorageError {}

/// One page of one file, as listed for the UI and the CLI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageInfo {
    pub index: u64,
    /// First byte of the file on this page.
    pub file_position: u64,
    /// Bytes of the page the file uses (the last page may be partly empty).
    pub used: u32,
    /// How many holders (checkpoints, brokers' clones) share this page.
    pub shared_by: u32,
}

/// Named files made of pages.
pub trait Storage {
    fn page_size(&self) -> u32;
    fn exists(&self, name: &str) -> bool;
    /// Creates an empty file; fails if it exists.
    fn create(&mut self, name: &str) -> Result<(), StorageError>;
    fn len(&self, name: &str) -> Result<u64, StorageError>;
    /// Appends `data` and returns the position it was written at.
    fn append(&mut self, name: &str, data: &[u8]) -> Result<u64, StorageError>;
    /// Overwrites bytes at `position` (which must not be past the end; writing
    /// over the end extends the file).
    fn write_at(&mut self, name: &str, position: u64, data: &[u8]) -> Result<(), StorageError>;
    /// Fills `buf` from `position`; the whole range must be inside the file.
    fn read_into(&self, name: &str, position: u64, buf: &mut [u8]) -> Result<(), StorageError> {
        self.reader(name)?.read_into(position, buf)
    }
    /// Opens a file for many small reads: the name is looked up once.
    fn reader<'a>(&'a self, name: &'a str) -> Result<FileReader<'a>, StorageError>;
    /// Shortens a file to `len` bytes (never lengthens it).
    fn truncate(&mut self, name: &str, len: u64) -> Result<(), StorageError>;
    fn rename(&mut self, from: &str, to: &str) -> Result<(), StorageError>;
    fn delete(&mut self, name: &str) -> Result<(), StorageError>;
    /// File names that start with `prefix`, in order.
    fn list(&self, prefix: &str) -> Vec<String>;
    fn pages(&self, name: &str) -> Result<Vec<PageInfo>, StorageError>;

    /// Reads `len` bytes at `position` into a new vector.
    fn read(&self, name: &str, position: u64, len: u64) -> Result<Vec<u8>, StorageError> {
        let mut v = vec![0u8; len as usize];
        self.read_into(name, position, &mut v)?;
        Ok(v)
    }

    /// The whole file.
    fn read_all(&self, name: &str) -> Result<Vec<u8>, StorageError> {
        let n = self.len(name)?;
        self.read(name, 0, n)
    }
}

/// A file opened for reading ([`Storage::reader`]): its pages, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct FileReader<'a> {
    name: &'a str,
    pages: &'a [Page],
    len: u64,
    page_size: u64,
}

impl<'a> FileReader<'a> {
    /// The bytes `[position, position + len)` when they lie in one page (an
    /// index entry, a batch header: nearly always), without copying them.
    pub fn slice(&self, position: u64, len: usize) -> Option<&'a [u8]> {
        let end = position.checked_add(len as u64)?;
        if end > self.len {
            return None;
        }
        // Page sizes are powers of two (MemStorage::new checks).
        let in_page = (position & (self.page_size - 1)) as usize;
        if in_page + len > self.page_size as usize {
            return None;
        }
        // A shift, not a division: this runs for every index entry and
        // batch header a lookup reads.
        let page_no = position >> self.page_size.trailing_zeros();
        let page: &'a [u8] = self.pages.get(page_no as usize)?;
        page.get(in_page..in_page + len)
    }
}

impl FileReader<'_> {
    /// The file's length.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fills `buf` from `position`; the whole range must be inside the file.
    pub fn read_into(&self, position: u64, buf: &mut [u8]) -> Result<(), StorageError> {
        let ps = self.page_size;
        let end = position.checked_add(buf.len() as u64);
        if end.is_none_or(|e| e > self.len) {
            return Err(StorageError::OutOfBounds {
                file: self.name.to_string(),
                position,
                len: buf.len() as u64,
                file_len: self.len,
            });
        }
        let mut pos = position;
        let mut out = &mut buf[..];
        while !out.is_empty() {
            let page = &self.pages[(pos / ps) as usize];
            let in_page = (pos % ps) as usize;
            let n = out.len().min(ps as usize - in_page);
            out[..n].copy_from_slice(&page[in_page..in_page + n]);
            out = &mut out[n..];
            pos += n as u64;
        }
        Ok(())
    }
}

/// One page: always `page_size` bytes long, of which the file uses those
/// below its length (the rest are zeros, or bytes a truncation left, never
/// read). The bytes follow the `Arc`'s counts in one allocation, so a read
/// goes from the file's page list straight to them.
type Page = Arc<[u8]>;

#[derive(Clone, Debug, Default)]
struct MemFile {
    pages: Vec<Page>,
    len: u64,
}

/// The files by name. Hashed, for the fetch path's lookups (a broker holds
/// thousands of segment files whose names share a long prefix); the hasher
/// has fixed keys, and nothing depends on the iteration order ([`Storage::list`]
/// sorts). Names and files are shared, like pages, so a copy of the map
/// (the first write after a checkpoint) copies pointers.
type Files = crate::collections::FastMap<Arc<str>, Arc<MemFile>>;

/// The in-memory [`Storage`]: a map from file name to a vector of shared pages.
///
/// Cloning it (the timeline's checkpoints clone whole brokers) shares the
/// map; the first write after that copies the map's pointers and the one
/// file written, not every file's name and page list.
#[derive(Clone, Debug)]
pub struct MemStorage {
    page_size: u32,
    files: Arc<Files>,
}

impl Default for MemStorage {
    fn default() -> Self {
        MemStorage::new(DEFAULT_PAGE_SIZE)
    }
}

impl MemStorage {
    pub fn new(page_size: u32) -> MemStorage {
        assert!(page_size >= 64, "page size below 64 bytes");
        assert!(page_size.is_power_of_two(), "page size not a power of two");
        MemStorage {
            page_size,
            files: Arc::default(),
        }
    }

    fn file(&self, name: &str) -> Result<&MemFile, StorageError> {
        self.files
            .get(name)
            .map(|f| &**f)
            .ok_or_else(|| StorageError::NotFound(name.to_string()))
    }

    /// File `name`, to write to (copied first, with the map, if a clone
    /// of this storage still shares them).
    fn file_mut(&mut self, name: &str) -> Result<&mut MemFile, StorageError> {
        if !self.files.contains_key(name) {
            return Err(StorageError::NotFound(name.to_string()));
        }
        Arc::make_mut(&mut self.files)
            .get_mut(name)
            .map(Arc::make_mut)
            .ok_or_else(|| StorageError::NotFound(name.to_string()))
    }

    /// Bytes held in pages (allocated), across all files.
    pub fn allocated_bytes(&self) -> u64 {
        self.files
            .values()
            .map(|f| f.pages.len() as u64 * self.page_size as u64)
            .sum()
    }

    /// Bytes of file content, across all files.
    pub fn content_bytes(&self) -> u64 {
        self.files.values().map(|f| f.len).sum()
    }
}

impl Storage for MemStorage {
    fn page_size(&self) -> u32 {
        self.page_size
    }

    fn exists(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    fn create(&mut self, name: &str) -> Result<(), StorageError> {
        if self.files.contains_key(name) {
            return Err(StorageError::AlreadyExists(name.to_string()));
        }
        Arc::make_mut(&mut self.files).insert(Arc::from(name), Arc::default());
        Ok(())
    }

    fn len(&self, name: &str) -> Result<u64, StorageError> {
        Ok(self.file(name)?.len)
    }

    fn append(&mut self, name: &str, data: &[u8]) -> Result<u64, StorageError> {
        let pos = self.len(name)?;
        self.write_at(name, pos, data)?;
        Ok(pos)
    }

    fn write_at(&mut self, name: &str, position: u64, data: &[u8]) -> Result<(), StorageError> {
        let ps = self.page_size as u64;
        let len = self.file(name)?.len;
        if position > len {
            return Err(StorageError::OutOfBounds {
                file: name.to_string(),
                position,
                len: data.len() as u64,
                file_len: len,
            });
        }
        if data.is_empty() {
            return Ok(());
        }
        let f = self.file_mut(name)?;
        let mut pos = position;
        let mut rest = data;
        while !rest.is_empty() {
            let page_no = (pos / ps) as usize;
            let in_page = (pos % ps) as usize;
            if page_no == f.pages.len() {
                f.pages.push(std::iter::repeat_n(0, ps as usize).collect());
            }
            // Copy-on-write: only a page shared with a checkpoint is cloned.
            let page = Arc::make_mut(&mut f.pages[page_no]);
            let n = rest.len().min(ps as usize - in_page);
            page[in_page..in_page + n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            pos += n as u64;
        }
        f.len = f.len.max(pos);
        Ok(())
    }

    fn reader<'a>(&'a self, name: &'a str) -> Result<FileReader<'a>, StorageError> {
        let f = self.file(name)?;
        Ok(FileReader {
            name,
            pages: &f.pages,
            len: f.len,
            page_size: self.page_size as u64,
        })
    }

    fn truncate(&mut self, name: &str, len: u64) -> Result<(), StorageError> {
        let ps = self.page_size as u64;
        if len >= self.file(name)?.len {
            return Ok(());
        }
        let f = self.file_mut(name)?;
        // The last page keeps its bytes past `len`: nothing reads them, and
        // an append writes over them (a page shared with a checkpoint stays
        // as the checkpoint has it).
        f.pages.truncate(len.div_ceil(ps) as usize);
        f.len = len;
        Ok(())
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), StorageError> {
        if self.files.contains_key(to) {
            return Err(StorageError::AlreadyExists(to.to_string()));
        }
        if !self.files.contains_key(from) {
            return Err(StorageError::NotFound(from.to_string()));
        }
        let files = Arc::make_mut(&mut self.files);
        let f = files
            .remove(from)
            .ok_or_else(|| StorageError::NotFound(from.to_string()))?;
        files.insert(Arc::from(to), f);
        Ok(())
    }

    fn delete(&mut self, name: &str) -> Result<(), StorageError> {
        if !self.files.contains_key(name) {
            return Err(StorageError::NotFound(name.to_string()));
        }
        Arc::make_mut(&mut self.files).remove(name);
        Ok(())
    }

    fn list(&self, prefix: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter(|k| k.starts_with(prefix))
            .map(|k| k.to_string())
            .collect();
        names.sort();
        names
    }

    fn pages(&self, name: &str) -> Result<Vec<PageInfo>, StorageError> {
        let ps = self.page_size as u64;
        // Holders of the map, of the file in it, of the page in the file:
        // how many storages reach the page when the sharing is a tree (as
        // a broker's checkpoints make it).
        let file = self
            .files
            .get(name)
            .ok_or_else(|| StorageError::NotFound(name.to_string()))?;
        let holders = Arc::strong_count(&self.files) * Arc::strong_count(file);
        let f = &**file;
        Ok(f.pages
            .iter()
            .enumerate()
            .map(|(i, p)| PageInfo {
                index: i as u64,
                file_position: i as u64 * ps,
                used: (f.len - i as u64 * ps).min(ps) as u32,
                shared_by: (holders * Arc::strong_count(p)) as u32,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segment names share a long prefix and differ in the last digits and
    /// the suffix: every byte must count, the tail after the last whole
    /// eight-byte word too.
    #[test]
    fn file_names_that_differ_anywhere_hash_apart() {
        use crate::collections::FastBuild;
        use std::hash::BuildHasher;
        let h = |s: &str| FastBuild::default().hash_one(s);
        let names = [
            "orders-0/00000000000000000000.log",
            "orders-0/00000000000000000001.log",
            "orders-0/00000000000000000000.index",
            "orders-0/00000000000000000000.timeindex",
            "orders-1/00000000000000000000.log",
            "orders-0/00000000000000000000.lo",
        ];
        let mut hashes: Vec<u64> = names.iter().map(|n| h(n)).collect();
        let owned = FastBuild::default().hash_one(names[0].to_string());
        assert_eq!(h(names[0]), owned, "a String and its &str hash alike");
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), names.len());
    }

    #[test]
    fn appends_span_pages_and_read_back() {
        let mut s = MemStorage::new(64);
        s.create("t-0/a.log").unwrap();
        let data: Vec<u8> = (0..200u32).map(|i| i as u8).collect();
        assert_eq!(s.append("t-0/a.log", &data[..100]).unwrap(), 0);
        assert_eq!(s.append("t-0/a.log", &data[100..]).unwrap(), 100);
        assert_eq!(s.read_all("t-0/a.log").unwrap(), data);
        assert_eq!(s.read("t-0/a.log", 60, 10).unwrap(), data[60..70].to_vec());
        let pages = s.pages("t-0/a.log").unwrap();
        assert_eq!(pages.len(), 4);
        assert_eq!(pages[3].used, 8);
        assert!(s.read("t-0/a.log", 195, 10).is_err());
    }

    #[test]
    fn truncate_rename_delete_and_list() {
        let mut s = MemStorage::new(64);
        s.create("a/1").unwrap();
        s.create("a/2").unwrap();
        s.create("b/1").unwrap();
        s.append("a/1", &[7u8; 150]).unwrap();
        s.truncate("a/1", 70).unwrap();
        assert_eq!(s.len("a/1").unwrap(), 70);
        assert_eq!(s.pages("a/1").unwrap().len(), 2);
        s.append("a/1", &[9u8; 2]).unwrap();
        assert_eq!(s.read("a/1", 69, 3).unwrap(), vec![7, 9, 9]);
        assert_eq!(s.list("a/"), vec!["a/1".to_string(), "a/2".to_string()]);
        s.rename("a/2", "a/2.deleted").unwrap();
        assert!(s.rename("a/1", "b/1").is_err());
        s.delete("a/2.deleted").unwrap();
        assert_eq!(s.delete("a/2"), Err(StorageError::NotFound("a/2".into())));
    }

    #[test]
    fn clones_share_full_pages_until_written() {
        let mut s = MemStorage::new(64);
        s.create("f").unwrap();
        s.append("f", &[1u8; 100]).unwrap();
        let snapshot = s.clone();
        assert_eq!(s.pages("f").unwrap()[0].shared_by, 2);
        s.append("f", &[2u8; 10]).unwrap(); // touches only the second page
        assert_eq!(s.pages("f").unwrap()[0].shared_by, 2);
        assert_eq!(s.pages("f").unwrap()[1].shared_by, 1);
        assert_eq!(snapshot.len("f").unwrap(), 100);
        assert_eq!(s.len("f").unwrap(), 110);
    }

    #[test]
    fn a_clone_keeps_its_files_whatever_the_original_does_next() {
        let mut s = MemStorage::new(64);
        for f in ["f", "g", "h"] {
            s.create(f).unwrap();
            s.append(f, &[1u8; 70]).unwrap();
        }
        let snapshot = s.clone();
        s.append("f", &[2u8; 5]).unwrap();
        s.write_at("g", 0, &[3u8; 2]).unwrap();
        s.truncate("h", 10).unwrap();
        s.rename("h", "h.deleted").unwrap();
        s.create("k").unwrap();
        // The snapshot reads as it was.
        assert_eq!(snapshot.list(""), vec!["f", "g", "h"]);
        assert_eq!(snapshot.read_all("f").unwrap(), vec![1u8; 70]);
        assert_eq!(snapshot.read_all("g").unwrap(), vec![1u8; 70]);
        assert_eq!(snapshot.len("h").unwrap(), 70);
        // The original reads as written.
        assert_eq!(s.list(""), vec!["f", "g", "h.deleted", "k"]);
        assert_eq!(s.read("f", 68, 4).unwrap(), vec![1, 1, 2, 2]);
        assert_eq!(s.read("g", 0, 3).unwrap(), vec![3, 3, 1]);
        assert_eq!(s.len("h.deleted").unwrap(), 10);
        // Pages nobody wrote are still shared: f's first, h's.
        assert_eq!(s.pages("f").unwrap()[0].shared_by, 2);
        assert_eq!(s.pages("f").unwrap()[1].shared_by, 1);
        assert_eq!(s.pages("g").unwrap()[0].shared_by, 1);
        assert_eq!(s.pages("h.deleted").unwrap()[0].shared_by, 2);
        // A failed write copies nothing.
        let shared = s.clone();
        assert!(s.write_at("f", 1_000, &[1]).is_err());
        assert!(s.truncate("nope", 0).is_err());
        assert_eq!(s.pages("g").unwrap()[0].shared_by, 2);
        drop(shared);
    }

    #[test]
    fn memory_stays_close_to_content_for_full_pages() {
        let mut s = MemStorage::default();
        s.create("f").unwrap();
        s.append("f", &vec![0u8; 4096 * 100]).unwrap();
        assert_eq!(s.allocated_bytes(), s.content_bytes());
    }
}
