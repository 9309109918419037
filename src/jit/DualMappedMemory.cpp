#include "jit/DualMappedMemory.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ExecutionEngine/Orc/MemoryMapper.h>
#include <llvm/ExecutionEngine/Orc/Shared/AllocationActions.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/Memory.h>
#include <llvm/Support/Process.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(DSL_HAVE_VALGRIND_H)
#include <valgrind/valgrind.h>
#endif

namespace dsl::jit {

#if defined(__linux__) && defined(MFD_CLOEXEC)

namespace {

using llvm::orc::ExecutorAddr;

llvm::Error failure(const std::string &what) {
    return llvm::make_error<llvm::StringError>(what + ": " + std::strerror(errno),
                                               llvm::inconvertibleErrorCode());
}

class DualMappedMemory final : public llvm::orc::MemoryMapper {
  public:
    explicit DualMappedMemory(unsigned page_size) : page_size_(page_size) {}

    ~DualMappedMemory() override {
        for (auto &[executable, r] : reservations_)
            unmap(r);
    }

    unsigned int getPageSize() override { return page_size_; }

    void reserve(size_t bytes, OnReservedFunction on_reserved) override {
        Reservation r;
        if (llvm::Error e = map_twice(bytes, r)) return on_reserved(std::move(e));
        {
            std::lock_guard<std::mutex> lock(mutex_);
            reservations_[r.executable] = r;
        }
        on_reserved(llvm::orc::ExecutorAddrRange(ExecutorAddr::fromPtr(r.executable), bytes));
    }

    char *prepare(ExecutorAddr address, size_t) override {
        std::lock_guard<std::mutex> lock(mutex_);
        char *p = address.toPtr<char *>();
        auto it = reservations_.upper_bound(p);
        if (it == reservations_.begin()) return nullptr;
        --it;
        const Reservation &r = it->second;
        if (p >= r.executable + r.bytes) return nullptr;
        return r.writable + (p - r.executable);
    }

    void initialize(AllocInfo &info, OnInitializedFunction on_initialized) override {
        ExecutorAddr first(~uint64_t(0));
        Allocation allocation;
        for (const AllocInfo::SegInfo &segment : info.Segments) {
            ExecutorAddr base = info.MappingBase + segment.Offset;
            first = std::min(first, base);
            // The contents were written through the writable view (WorkingMem); the rest of the
            // segment is zeros, whatever an earlier allocation left there.
            std::memset(const_cast<char *>(segment.WorkingMem) + segment.ContentSize, 0,
                        segment.ZeroFillSize);
            const size_t size = segment.ContentSize + segment.ZeroFillSize;
            using llvm::orc::MemProt;
            const auto prot = static_cast<unsigned>(segment.AG.getMemProt());
            if (prot & static_cast<unsigned>(MemProt::Write)) {
                // Writable at run time: its executable view becomes read-write while it lives.
                if (mprotect(base.toPtr<void *>(), size, PROT_READ | PROT_WRITE) != 0)
                    return on_initialized(failure("mprotect of a writable JIT segment"));
                allocation.writable_segments.push_back({base.toPtr<char *>(), size});
            }
            if (prot & static_cast<unsigned>(MemProt::Exec))
                llvm::sys::Memory::InvalidateInstructionCache(base.toPtr<void *>(), size);
        }
        auto deallocate = llvm::orc::shared::runFinalizeActions(info.Actions);
        if (!deallocate) return on_initialized(deallocate.takeError());
        allocation.deallocate = std::move(*deallocate);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            allocations_[first] = std::move(allocation);
        }
        on_initialized(first);
    }

    void deinitialize(llvm::ArrayRef<ExecutorAddr> bases,
                      OnDeinitializedFunction on_deinitialized) override {
        llvm::Error all = llvm::Error::success();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (ExecutorAddr base : llvm::reverse(bases)) {
                auto it = allocations_.find(base);
                if (it == allocations_.end()) continue;
                if (llvm::Error e = llvm::orc::shared::runDeallocActions(it->second.deallocate))
                    all = llvm::joinErrors(std::move(all), std::move(e));
                for (const auto &[p, size] : it->second.writable_segments) {
                    if (mprotect(p, size, PROT_READ | PROT_EXEC) != 0) {
                        all = llvm::joinErrors(std::move(all),
                                               failure("mprotect of a freed JIT segment"));
                    }
                }
                allocations_.erase(it);
            }
        }
        on_deinitialized(std::move(all));
    }

    void release(llvm::ArrayRef<ExecutorAddr> bases, OnReleasedFunction on_released) override {
        std::lock_guard<std::mutex> lock(mutex_);
        for (ExecutorAddr base : bases) {
            auto it = reservations_.find(base.toPtr<char *>());
            if (it == reservations_.end()) continue;
            unmap(it->second);
            reservations_.erase(it);
        }
        on_released(llvm::Error::success());
    }

    /// Whether a reservation can be made here at all (a small one, released at once).
    bool works() {
        Reservation r;
        if (llvm::Error e = map_twice(page_size_, r)) {
            llvm::consumeError(std::move(e));
            return false;
        }
        unmap(r);
        return true;
    }

  private:
    struct Reservation {
        char *executable = nullptr, *writable = nullptr;
        size_t bytes = 0;
    };
    struct Allocation {
        std::vector<llvm::orc::shared::WrapperFunctionCall> deallocate;
        std::vector<std::pair<char *, size_t>> writable_segments;
    };

    static llvm::Error map_twice(size_t bytes, Reservation &r) {
        int fd = memfd_create("dsl-jit-code", MFD_CLOEXEC);
        if (fd < 0) return failure("memfd_create for JIT code");
        if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
            llvm::Error e = failure("ftruncate of the JIT's code file");
            close(fd);
            return e;
        }
        void *writable = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        void *executable = writable == MAP_FAILED
                               ? MAP_FAILED
                               : mmap(nullptr, bytes, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
        llvm::Error e = executable == MAP_FAILED ? failure("mmap of the JIT's code file")
                                                 : llvm::Error::success();
        close(fd);  // the mappings keep the file
        if (e) {
            if (writable != MAP_FAILED) munmap(writable, bytes);
            return e;
        }
        r.writable = static_cast<char *>(writable);
        r.executable = static_cast<char *>(executable);
        r.bytes = bytes;
        return llvm::Error::success();
    }

    static void unmap(const Reservation &r) {
        munmap(r.writable, r.bytes);
        munmap(r.executable, r.bytes);
    }

    const unsigned page_size_;
    std::mutex mutex_;
    std::map<char *, Reservation> reservations_;  // by the executable view's address
    std::map<ExecutorAddr, Allocation> allocations_;
};

}  // namespace

std::unique_ptr<llvm::orc::MemoryMapper> make_dual_mapped_memory() {
    if (const char *v = std::getenv("DSL_JIT_DUAL_MAPPING"); v && std::string(v) == "0")
        return nullptr;
#if defined(DSL_HAVE_VALGRIND_H)
    // Valgrind sees the code written through the other view as never written.
    if (RUNNING_ON_VALGRIND) return nullptr;
#endif
    auto page_size = llvm::sys::Process::getPageSize();
    if (!page_size) {
        llvm::consumeError(page_size.takeError());
        return nullptr;
    }
    auto mapper = std::make_unique<DualMappedMemory>(static_cast<unsigned>(*page_size));
    if (!mapper->works()) return nullptr;
    return mapper;
}

#else

std::unique_ptr<llvm::orc::MemoryMapper> make_dual_mapped_memory() {
    return nullptr;
}

#endif

bool dual_mapped_memory_available() {
    return make_dual_mapped_memory() != nullptr;
}

}  // namespace dsl::jit
