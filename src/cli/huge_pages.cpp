// The program's allocator: malloc, plus transparent huge pages for large
// blocks. A long progress log, its parsed document and its JSON are large
// buffers touched once, page by page; on a virtual machine each 4 KiB page
// fault is costly, and asking for 2 MiB pages (MADV_HUGEPAGE) cut
// `emit --include progress` on a 100k-entry log from ~1.0 s to ~0.4 s
// (docs/performance.md). Where the kernel offers no huge pages, madvise
// fails and nothing changes. Defined here, at the program's edge, because
// it is a process-wide policy: the library allocates as usual.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

void* allocate(std::size_t size) {
    for (;;) {
        if (void* p = std::malloc(size == 0 ? 1 : size)) {
            if (size >= kHugePage) {
                // Advise the whole pages inside the block (madvise wants page-aligned ranges).
                const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
                const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
                const auto end = (reinterpret_cast<std::uintptr_t>(p) + size) & ~(page - 1);
                if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
            }
            return p;
        }
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return allocate(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return allocate(size);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
