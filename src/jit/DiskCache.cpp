// The disk cache's files. Everything here is plain POSIX, and nothing throws once the cache is
// configured: a cache that cannot be read or written only makes the JIT compile.
#include "jit/DiskCache.h"

#include <llvm/Config/llvm-config.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include "ir/Error.h"
#include "jit/BuildId.h"
#include "jit/Hash.h"

namespace dsl::jit {

namespace {

// The layout of an entry: the header, the note, zeros up to an aligned offset, the object. The key
// itself is not stored: its length and two independent 128-bit hashes identify it (the first also
// names the file).
constexpr char kMagic[8] = {'d', 's', 'l', 'c', 'a', 'c', 'h', 'e'};
constexpr size_t kVersionOffset = 8;
constexpr size_t kHeaderSizeOffset = 12;
constexpr size_t kKeySizeOffset = 16;
constexpr size_t kKeyHashOffset = 24;
constexpr size_t kKeyCheckOffset = 40;
constexpr size_t kNoteSizeOffset = 56;
constexpr size_t kObjectSizeOffset = 64;
constexpr size_t kNoteChecksumOffset = 72;
constexpr size_t kObjectChecksumOffset = 88;
constexpr size_t kHeaderSize = 104;
constexpr uint64_t kObjectAlignment = 64;
/// The seed of the key's second hash.
constexpr uint64_t kKeyCheckSeed = 0x5eed0fd15cac4e11ull;
/// No entry is larger; a header that claims more is corrupt.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;
/// A temporary file older than this was left by a writer that died.
constexpr time_t kStaleTemporarySeconds = 3600;

void put_u32(std::string &s, size_t offset, uint32_t v) {
    std::memcpy(&s[offset], &v, sizeof v);
}
void put_u64(std::string &s, size_t offset, uint64_t v) {
    std::memcpy(&s[offset], &v, sizeof v);
}
uint32_t get_u32(std::string_view s, size_t offset) {
    uint32_t v;
    std::memcpy(&v, s.data() + offset, sizeof v);
    return v;
}
uint64_t get_u64(std::string_view s, size_t offset) {
    uint64_t v;
    std::memcpy(&v, s.data() + offset, sizeof v);
    return v;
}

std::string errno_text() {
    return std::strerror(errno);
}

/// `<32 hex digits>.o`: the name of an entry.
bool is_entry_name(const char *name) {
    size_t n = std::strlen(name);
    if (n != 34 || std::strcmp(name + 32, ".o") != 0) return false;
    for (size_t i = 0; i < 32; i++) {
        char c = name[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

/// `.<...>.tmp`: the name of a writer's temporary file.
bool is_temporary_name(const char *name) {
    size_t n = std::strlen(name);
    return n > 5 && name[0] == '.' && std::strcmp(name + n - 4, ".tmp") == 0;
}

/// Creates `directory` and its missing parents, like `mkdir -p`.
bool make_directories(const std::string &directory, std::string *problem) {
    for (size_t end = 1; end <= directory.size(); end++) {
        if (end != directory.size() && directory[end] != '/') continue;
        std::string prefix = directory.substr(0, end);
        if (mkdir(prefix.c_str(), 0777) == 0 || errno == EEXIST) continue;
        if (problem) *problem = "cannot create the directory " + prefix + ": " + errno_text();
        return false;
    }
    struct stat st;
    if (stat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (problem) *problem = directory + " is not a directory";
        return false;
    }
    return true;
}

bool write_all(int fd, const char *data, size_t size) {
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

Hash128 get_hash(std::string_view s, size_t offset) {
    return {get_u64(s, offset), get_u64(s, offset + 8)};
}
void put_hash(std::string &s, size_t offset, const Hash128 &h) {
    put_u64(s, offset, h.high);
    put_u64(s, offset + 8, h.low);
}

/// Where the object starts in an entry with a note of `note_size` bytes: aligned, because the
/// object is handed to the linker where it lies (in a mapping of the file), and object files are
/// parsed in place.
uint64_t object_offset(uint64_t note_size) {
    return (kHeaderSize + note_size + kObjectAlignment - 1) / kObjectAlignment * kObjectAlignment;
}

/// Why `entry` (the bytes of an entry's file) is not a valid entry for the key whose length and
/// hashes are given; empty if it is.
std::string check_entry(std::string_view entry, size_t key_size, const Hash128 &key_hash,
                        const Hash128 &key_check) {
    if (entry.size() < kHeaderSize)
        return "is truncated (" + std::to_string(entry.size()) + " bytes, shorter than its " +
               std::to_string(kHeaderSize) + "-byte header)";
    if (std::memcmp(entry.data(), kMagic, sizeof kMagic) != 0)
        return "does not start with the cache's magic bytes";
    uint32_t version = get_u32(entry, kVersionOffset);
    if (version != DiskCache::kFormatVersion)
        return "has format version " + std::to_string(version) + ", not " +
               std::to_string(DiskCache::kFormatVersion);
    if (get_u32(entry, kHeaderSizeOffset) != kHeaderSize) return "has a corrupt header";
    uint64_t note_size = get_u64(entry, kNoteSizeOffset);
    uint64_t object_size = get_u64(entry, kObjectSizeOffset);
    if (note_size > kMaxEntryBytes || object_size > kMaxEntryBytes ||
        object_offset(note_size) + object_size != entry.size())
        return "has a size (" + std::to_string(entry.size()) +
               " bytes) that disagrees with its header (truncated or corrupt)";
    if (get_u64(entry, kKeySizeOffset) != key_size || get_hash(entry, kKeyHashOffset) != key_hash ||
        get_hash(entry, kKeyCheckOffset) != key_check)
        return "was stored for another pipeline (a hash collision or a corrupt header)";
    if (hash128(entry.substr(kHeaderSize, note_size)) != get_hash(entry, kNoteChecksumOffset) ||
        hash128(entry.substr(object_offset(note_size))) != get_hash(entry, kObjectChecksumOffset))
        return "has contents whose checksum does not match";
    return {};
}

std::string temporary_name(const Hash128 &hash) {
    static std::atomic<uint64_t> counter{0};
    size_t thread = std::hash<std::thread::id>{}(std::this_thread::get_id());
    return "." + hash.hex() + "." + std::to_string(getpid()) + "." + std::to_string(thread) + "." +
           std::to_string(counter++) + ".tmp";
}

}  // namespace

std::string compiler_identity() {
    return std::string("dsl ") + build_version() + " (sources " + build_id() + "), LLVM " +
           LLVM_VERSION_STRING;
}

namespace {
std::mutex scoped_directory_mutex;
/// The directories of the ScopedDirectory objects alive, the latest last.
std::vector<std::string> scoped_directories;
}  // namespace

DiskCache::ScopedDirectory::ScopedDirectory(const std::string &directory) : directory_(directory) {
    std::lock_guard<std::mutex> lock(scoped_directory_mutex);
    scoped_directories.push_back(directory_);
}

DiskCache::ScopedDirectory::~ScopedDirectory() {
    std::lock_guard<std::mutex> lock(scoped_directory_mutex);
    auto mine = std::find(scoped_directories.rbegin(), scoped_directories.rend(), directory_);
    if (mine != scoped_directories.rend()) scoped_directories.erase(std::next(mine).base());
}

std::optional<DiskCache> DiskCache::from_environment() {
    {
        std::lock_guard<std::mutex> lock(scoped_directory_mutex);
        if (!scoped_directories.empty()) return DiskCache(scoped_directories.back());
    }
    std::string directory;
    if (const char *dir = std::getenv("DSL_CACHE_DIR")) {
        std::string d = dir;
        std::string lower = d;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (d.empty() || d == "0" || lower == "off") return std::nullopt;
        directory = d;
    } else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/') {
        // The XDG specification ignores a relative XDG_CACHE_HOME.
        directory = std::string(xdg) + "/dsl";
    } else if (const char *home = std::getenv("HOME"); home && *home) {
        directory = std::string(home) + "/.cache/dsl";
    } else {
        return std::nullopt;
    }
    while (directory.size() > 1 && directory.back() == '/')
        directory.pop_back();

    uint64_t max_bytes = kDefaultMaxBytes;
    if (const char *mb = std::getenv("DSL_CACHE_MAX_MB"); mb && *mb) {
        char *end = nullptr;
        double megabytes = std::strtod(mb, &end);
        user_assert(end && *end == 0 && std::isfinite(megabytes) && megabytes > 0 &&
                    megabytes < 1e12)
            << "DSL_CACHE_MAX_MB is \"" << mb << "\"; set it to the most megabytes the JIT's disk "
            << "cache (" << directory << ") may hold, a positive number such as 512, or unset it "
            << "for 256.";
        max_bytes = std::max<uint64_t>(1, static_cast<uint64_t>(megabytes * (1 << 20)));
    }
    return DiskCache(directory, max_bytes);
}

DiskCache::DiskCache(std::string directory, uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

std::string DiskCache::entry_path(const std::string &key) const {
    return directory_ + "/" + hash128(key).hex() + ".o";
}

DiskCache::Lookup DiskCache::load(const std::string &key) const {
    Lookup lookup;
    Hash128 key_hash = hash128(key);
    std::string path = directory_ + "/" + key_hash.hex() + ".o";
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) lookup.problem = "cannot open " + path + ": " + errno_text();
        return lookup;
    }
    // A file that cannot be examined or mapped may be fine: not rejected, just not used.
    auto unusable = [&](const char *what) {
        lookup.problem = "cannot " + std::string(what) + " " + path + ": " + errno_text();
        close(fd);
        return lookup;
    };
    struct stat st;
    if (fstat(fd, &st) != 0) return unusable("examine");
    std::string problem;
    std::string_view entry;
    if (!S_ISREG(st.st_mode)) {
        problem = "is not a regular file";
    } else if (static_cast<uint64_t>(st.st_size) > 2 * kMaxEntryBytes) {
        problem = "is larger than any entry (" + std::to_string(st.st_size) + " bytes)";
    } else if (st.st_size > 0) {
        // Mapped rather than read: the object goes to the linker where it lies, and reading
        // into fresh memory costs more than the mapping. Entries are never changed in place
        // (writers rename new files over them), so the mapping stays what was checked.
        size_t size = static_cast<size_t>(st.st_size);
        void *mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (mapped == MAP_FAILED) return unusable("map");
        lookup.storage = std::shared_ptr<const void>(
            mapped, [size](const void *p) { munmap(const_cast<void *>(p), size); });
        entry = std::string_view(static_cast<const char *>(mapped), size);
    }
    if (problem.empty())
        problem = check_entry(entry, key.size(), key_hash, hash128(key, kKeyCheckSeed));
    if (problem.empty()) {
        // Recently used: eviction goes by modification time. (Failing to touch is harmless.)
        (void)futimens(fd, nullptr);
        close(fd);
        uint64_t note_size = get_u64(entry, kNoteSizeOffset);
        lookup.result = Lookup::Result::Hit;
        lookup.note = std::string(entry.substr(kHeaderSize, note_size));
        lookup.object = entry.substr(object_offset(note_size));
        return lookup;
    }
    close(fd);
    lookup = Lookup();
    lookup.result = Lookup::Result::Rejected;
    lookup.problem = "the cache entry " + path + " " + problem;
    // Delete it, unless a writer has meanwhile replaced it with another file.
    struct stat now;
    if (S_ISREG(st.st_mode) && stat(path.c_str(), &now) == 0 && now.st_ino == st.st_ino &&
        now.st_dev == st.st_dev)
        (void)unlink(path.c_str());
    return lookup;
}

bool DiskCache::store(const std::string &key, const std::string &note, const std::string &object,
                      std::string *problem) const {
    if (!make_directories(directory_, problem)) return false;
    Hash128 key_hash = hash128(key);
    std::string bytes(kHeaderSize, '\0');
    bytes.reserve(object_offset(note.size()) + object.size());
    bytes += note;
    bytes.resize(object_offset(note.size()), '\0');
    bytes += object;
    std::memcpy(&bytes[0], kMagic, sizeof kMagic);
    put_u32(bytes, kVersionOffset, kFormatVersion);
    put_u32(bytes, kHeaderSizeOffset, kHeaderSize);
    put_u64(bytes, kKeySizeOffset, key.size());
    put_hash(bytes, kKeyHashOffset, key_hash);
    put_hash(bytes, kKeyCheckOffset, hash128(key, kKeyCheckSeed));
    put_u64(bytes, kNoteSizeOffset, note.size());
    put_u64(bytes, kObjectSizeOffset, object.size());
    put_hash(bytes, kNoteChecksumOffset, hash128(note));
    put_hash(bytes, kObjectChecksumOffset, hash128(object));

    std::string path = directory_ + "/" + key_hash.hex() + ".o";
    std::string temporary = directory_ + "/" + temporary_name(key_hash);
    int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (problem) *problem = "cannot create " + temporary + ": " + errno_text();
        return false;
    }
    bool written = write_all(fd, bytes.data(), bytes.size());
    std::string write_error = written ? "" : errno_text();
    if (close(fd) != 0 && written) {
        written = false;
        write_error = errno_text();
    }
    if (!written) {
        (void)unlink(temporary.c_str());
        if (problem) *problem = "cannot write " + temporary + ": " + write_error;
        return false;
    }
    // Atomic: a reader opens the old entry, the new one, or none; never half of one.
    if (rename(temporary.c_str(), path.c_str()) != 0) {
        if (problem) *problem = "cannot rename " + temporary + " to " + path + ": " + errno_text();
        (void)unlink(temporary.c_str());
        return false;
    }
    evict(path);
    return true;
}

void DiskCache::remove(const std::string &key) const {
    (void)unlink(entry_path(key).c_str());
}

void DiskCache::evict(const std::string &keep) const {
    DIR *dir = opendir(directory_.c_str());
    if (!dir) return;
    struct Entry {
        struct timespec used;
        uint64_t bytes;
        std::string name;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    time_t now = std::time(nullptr);
    int dir_fd = dirfd(dir);
    while (struct dirent *e = readdir(dir)) {
        bool entry = is_entry_name(e->d_name);
        if (!entry && !is_temporary_name(e->d_name)) continue;
        struct stat st;
        if (fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (!entry) {
            if (st.st_mtime < now - kStaleTemporarySeconds) (void)unlinkat(dir_fd, e->d_name, 0);
            continue;
        }
        entries.push_back({st.st_mtim, static_cast<uint64_t>(st.st_size), e->d_name});
        total += static_cast<uint64_t>(st.st_size);
    }
    if (total > max_bytes_) {
        std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
            if (a.used.tv_sec != b.used.tv_sec) return a.used.tv_sec < b.used.tv_sec;
            if (a.used.tv_nsec != b.used.tv_nsec) return a.used.tv_nsec < b.used.tv_nsec;
            return a.name < b.name;
        });
        for (const Entry &e : entries) {
            if (total <= max_bytes_) break;
            if (directory_ + "/" + e.name == keep) continue;
            // Another process may have deleted it first; either way it is gone.
            if (unlinkat(dir_fd, e.name.c_str(), 0) == 0 || errno == ENOENT) total -= e.bytes;
        }
    }
    closedir(dir);
}

}  // namespace dsl::jit
