// Static libraries (`ar` archives with a symbol table) written through LLVM's archive writer.
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "aot/AotModule.h"
#include "ir/Error.h"

namespace dsl::aot {

void write_static_library(const std::string &filename,
                          const std::vector<std::pair<std::string, std::string>> &objects) {
    std::vector<llvm::NewArchiveMember> members;
    for (const auto &[name, bytes] : objects) {
        llvm::NewArchiveMember member(llvm::MemoryBufferRef(bytes, name));
        member.MemberName = name;
        members.push_back(std::move(member));
    }
    llvm::Error error = llvm::writeArchive(filename, members, llvm::SymtabWritingMode::NormalSymtab,
                                           llvm::object::Archive::K_GNU, true, false);
    if (error) {
        std::string message = llvm::toString(std::move(error));
        user_error << "cannot write the static library \"" << filename << "\": " << message;
    }
}

}  // namespace dsl::aot
