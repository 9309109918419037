#include "jit/ObjectLoader.h"

#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "jit/ExternFunctions.h"
#include "jit/RuntimeSymbols.h"

namespace dsl::jit {

namespace {

size_t round_up(size_t n, size_t alignment) {
    return alignment <= 1 ? n : (n + alignment - 1) / alignment * alignment;
}

/// Where an object's pieces go in the mapping: code and the stubs that reach far functions,
/// then read-only data and the GOT, then writable data, each region on pages of its own.
struct Layout {
    std::vector<size_t> offset;  // per section; SIZE_MAX if not loaded
    size_t stubs = 0, got = 0;   // offsets of the stub table and of the GOT
    size_t code_end = 0, read_only_end = 0, total = 0;
};

/// A stub reaching a function anywhere in the address space: jmp *0(%rip), then the address.
constexpr size_t kStubSize = 16;

/// Appends the object's functions (address, size, name) to /tmp/perf-<pid>.map, where `perf
/// report` looks for the names of code it finds no file for.
template <typename NameOf>
void write_perf_map(const std::vector<Elf64_Sym> &symbols, const std::vector<uint64_t> &address,
                    NameOf name_of) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    FILE *file = std::fopen(path.c_str(), "a");
    if (!file) return;
    for (size_t i = 1; i < symbols.size(); i++) {
        const Elf64_Sym &sym = symbols[i];
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || address[i] == 0 || sym.st_size == 0) continue;
        std::fprintf(file, "%llx %llx %s\n", static_cast<unsigned long long>(address[i]),
                     static_cast<unsigned long long>(sym.st_size), name_of(sym).c_str());
    }
    std::fclose(file);
}

}  // namespace

std::unique_ptr<LoadedObject> LoadedObject::load(const char *bytes, size_t size,
                                                 std::string *problem) {
    auto fail = [&](const std::string &why) -> std::unique_ptr<LoadedObject> {
        *problem = why;
        return nullptr;
    };
    if (size < sizeof(Elf64_Ehdr)) return fail("too short for an ELF header");
    Elf64_Ehdr header;
    std::memcpy(&header, bytes, sizeof(header));
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
        header.e_type != ET_REL || header.e_machine != EM_X86_64)
        return fail("not a relocatable 64-bit little-endian x86-64 ELF object");
    if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0 || header.e_shoff > size ||
        (size - header.e_shoff) / sizeof(Elf64_Shdr) < header.e_shnum)
        return fail("its section headers lie outside it");
    std::vector<Elf64_Shdr> sections(header.e_shnum);
    std::memcpy(sections.data(), bytes + header.e_shoff, sizeof(Elf64_Shdr) * header.e_shnum);
    for (const Elf64_Shdr &s : sections) {
        if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL &&
            (s.sh_offset > size || s.sh_size > size - s.sh_offset))
            return fail("a section lies outside it");
    }

    // The symbol table and its names.
    const Elf64_Shdr *symtab = nullptr;
    for (const Elf64_Shdr &s : sections) {
        if (s.sh_type == SHT_SYMTAB) symtab = &s;
    }
    if (!symtab || symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_link >= sections.size())
        return fail("no usable symbol table");
    const Elf64_Shdr &strtab = sections[symtab->sh_link];
    const size_t symbol_count = symtab->sh_size / sizeof(Elf64_Sym);
    std::vector<Elf64_Sym> symbols(symbol_count);
    std::memcpy(symbols.data(), bytes + symtab->sh_offset, sizeof(Elf64_Sym) * symbol_count);
    auto name_of = [&](const Elf64_Sym &sym) -> std::string {
        if (sym.st_name >= strtab.sh_size) return {};
        const char *begin = bytes + strtab.sh_offset + sym.st_name;
        return std::string(begin, strnlen(begin, strtab.sh_size - sym.st_name));
    };

    // Lay the loaded sections out.
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    Layout layout;
    layout.offset.assign(sections.size(), SIZE_MAX);
    size_t at = 0;
    auto place = [&](bool (*wanted)(const Elf64_Shdr &)) {
        for (size_t i = 0; i < sections.size(); i++) {
            const Elf64_Shdr &s = sections[i];
            if (!(s.sh_flags & SHF_ALLOC) || s.sh_size == 0 || !wanted(s)) continue;
            at = round_up(at, s.sh_addralign);
            layout.offset[i] = at;
            at += s.sh_size;
        }
    };
    for (const Elf64_Shdr &s : sections) {
        if (!(s.sh_flags & SHF_ALLOC)) continue;
        if (s.sh_flags & SHF_TLS) return fail("it has thread-local storage");
        if (s.sh_type == SHT_INIT_ARRAY || s.sh_type == SHT_FINI_ARRAY ||
            s.sh_type == SHT_PREINIT_ARRAY)
            return fail("it has initialisers or finalisers");
    }
    place([](const Elf64_Shdr &s) { return (s.sh_flags & SHF_EXECINSTR) != 0; });
    at = round_up(at, kStubSize);
    layout.stubs = at;
    at += kStubSize * symbol_count;
    layout.code_end = at = round_up(at, page);
    place([](const Elf64_Shdr &s) { return !(s.sh_flags & (SHF_EXECINSTR | SHF_WRITE)); });
    at = round_up(at, 8);
    layout.got = at;
    at += 8 * symbol_count;
    layout.read_only_end = at = round_up(at, page);
    place([](const Elf64_Shdr &s) {
        return (s.sh_flags & SHF_WRITE) != 0 && !(s.sh_flags & SHF_EXECINSTR);
    });
    layout.total = round_up(at, page);

    void *memory =
        mmap(nullptr, layout.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return fail("no memory could be mapped for it");
    std::unique_ptr<LoadedObject> result(new LoadedObject());
    result->memory_ = memory;
    result->size_ = layout.total;
    char *base = static_cast<char *>(memory);
    for (size_t i = 0; i < sections.size(); i++) {
        if (layout.offset[i] == SIZE_MAX || sections[i].sh_type == SHT_NOBITS) continue;
        std::memcpy(base + layout.offset[i], bytes + sections[i].sh_offset, sections[i].sh_size);
    }

    // Every symbol's address: defined ones in their section, undefined ones in the runtime or
    // the process.
    static const std::map<std::string, void *> runtime = [] {
        std::map<std::string, void *> m;
        for (const RuntimeSymbol &s : runtime_symbols())
            m[s.name] = s.address;
        return m;
    }();
    std::vector<uint64_t> address(symbol_count, 0);
    for (size_t i = 1; i < symbol_count; i++) {
        const Elf64_Sym &sym = symbols[i];
        if (sym.st_shndx == SHN_UNDEF) {
            std::string name = name_of(sym);
            auto found = runtime.find(name);
            void *p = found != runtime.end() ? found->second : nullptr;
            if (!p) {
                p = jit_extern_address(name);  // DSL_EXTERN, set_jit_externs
                if (!p) p = dlsym(RTLD_DEFAULT, name.c_str());
            }
            if (!p && ELF64_ST_BIND(sym.st_info) != STB_WEAK)
                return fail("the symbol \"" + name + "\" is not defined in this process");
            address[i] = reinterpret_cast<uint64_t>(p);
        } else if (sym.st_shndx == SHN_ABS) {
            address[i] = sym.st_value;
        } else if (sym.st_shndx >= SHN_LORESERVE) {
            return fail("a symbol is common or in an extended section");
        } else if (sym.st_shndx < sections.size() && layout.offset[sym.st_shndx] != SIZE_MAX) {
            address[i] =
                reinterpret_cast<uint64_t>(base + layout.offset[sym.st_shndx]) + sym.st_value;
        }
    }

    // The relocations of every loaded section.
    for (const Elf64_Shdr &rs : sections) {
        if (rs.sh_type == SHT_REL) return fail("it has relocations without addends");
        if (rs.sh_type != SHT_RELA || rs.sh_info >= sections.size() ||
            layout.offset[rs.sh_info] == SIZE_MAX)
            continue;
        if (rs.sh_entsize != sizeof(Elf64_Rela)) return fail("a relocation table is malformed");
        const Elf64_Shdr &target = sections[rs.sh_info];
        char *section_base = base + layout.offset[rs.sh_info];
        const size_t count = rs.sh_size / sizeof(Elf64_Rela);
        for (size_t k = 0; k < count; k++) {
            Elf64_Rela r;
            std::memcpy(&r, bytes + rs.sh_offset + k * sizeof(Elf64_Rela), sizeof(r));
            const uint32_t type = ELF64_R_TYPE(r.r_info);
            const size_t sym = ELF64_R_SYM(r.r_info);
            if (type == R_X86_64_NONE) continue;
            if (sym >= symbol_count) return fail("a relocation names no symbol");
            const size_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
            if (r.r_offset > target.sh_size || target.sh_size - r.r_offset < width)
                return fail("a relocation lies outside its section");
            char *place_at = section_base + r.r_offset;
            const int64_t P = static_cast<int64_t>(reinterpret_cast<uint64_t>(place_at));
            const int64_t A = r.r_addend;
            int64_t S = static_cast<int64_t>(address[sym]);
            auto write32 = [&](int64_t value, bool is_signed) {
                if (is_signed ? (value < INT32_MIN || value > INT32_MAX)
                              : (value < 0 || value > int64_t(UINT32_MAX)))
                    return false;
                uint32_t v = static_cast<uint32_t>(value);
                std::memcpy(place_at, &v, 4);
                return true;
            };
            auto write64 = [&](int64_t value) { std::memcpy(place_at, &value, 8); };
            switch (type) {
                case R_X86_64_64:
                    write64(S + A);
                    break;
                case R_X86_64_PC64:
                    write64(S + A - P);
                    break;
                case R_X86_64_PC32:
                    if (!write32(S + A - P, true))
                        return fail("a PC-relative reference to \"" + name_of(symbols[sym]) +
                                    "\" is out of reach");
                    break;
                case R_X86_64_PLT32:
                    if (!write32(S + A - P, true)) {
                        // A function out of reach of a 32-bit displacement: through a stub.
                        char *stub = base + layout.stubs + kStubSize * sym;
                        const unsigned char jump[6] = {0xff, 0x25, 0, 0, 0, 0};
                        std::memcpy(stub, jump, 6);
                        std::memcpy(stub + 6, &address[sym], 8);
                        S = static_cast<int64_t>(reinterpret_cast<uint64_t>(stub));
                        if (!write32(S + A - P, true)) return fail("a stub is out of reach");
                    }
                    break;
                case R_X86_64_GOTPCREL:
                case R_X86_64_GOTPCRELX:
                case R_X86_64_REX_GOTPCRELX: {
                    char *entry = base + layout.got + 8 * sym;
                    std::memcpy(entry, &address[sym], 8);
                    const int64_t G = static_cast<int64_t>(reinterpret_cast<uint64_t>(entry));
                    if (!write32(G + A - P, true)) return fail("a GOT entry is out of reach");
                    break;
                }
                case R_X86_64_32:
                    if (!write32(S + A, false)) return fail("an absolute 32-bit reference");
                    break;
                case R_X86_64_32S:
                    if (!write32(S + A, true)) return fail("an absolute 32-bit reference");
                    break;
                default:
                    return fail("it has a relocation of type " + std::to_string(type));
            }
        }
    }

    if (mprotect(base, layout.code_end, PROT_READ | PROT_EXEC) != 0 ||
        (layout.read_only_end > layout.code_end &&
         mprotect(base + layout.code_end, layout.read_only_end - layout.code_end, PROT_READ) != 0))
        return fail("its memory could not be protected");

    if (const char *map = std::getenv("DSL_PERF_MAP"); map && std::string(map) == "1")
        write_perf_map(symbols, address, name_of);
    for (size_t i = 1; i < symbol_count; i++) {
        const Elf64_Sym &sym = symbols[i];
        const unsigned bind = ELF64_ST_BIND(sym.st_info);
        if ((bind == STB_GLOBAL || bind == STB_WEAK) && sym.st_shndx != SHN_UNDEF &&
            address[i] != 0)
            result->symbols_[name_of(sym)] = reinterpret_cast<void *>(address[i]);
    }
    return result;
}

LoadedObject::~LoadedObject() {
    if (memory_) munmap(memory_, size_);
}

void *LoadedObject::symbol(const std::string &name) const {
    auto it = symbols_.find(name);
    return it == symbols_.end() ? nullptr : it->second;
}

}  // namespace dsl::jit
