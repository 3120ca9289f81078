// Qt 5 and Qt 6 in one process stay apart.
//
// Debian's libtorch_cpu links OpenCV's highgui, which links Qt 5, so this
// executable loads libQt5Core/Gui/Widgets next to our libQt6Core. Both export
// the same C++ names (QByteArray::append(const char *), operator<(QString,
// QString), ...). Qt 5's references ask for the version "Qt_5", but the dynamic
// linker lets an unversioned definition satisfy any version, and the program
// comes first in the lookup order: if the executable exports its copy of a
// Qt 6 inline function under a name Qt 5 imports, Qt 5 calls Qt 6 code. (The
// ASan build crashed that way in Qt5Widgets' static initialiser.) The project
// builds with hidden visibility (cmake/TreeLensCompiler.cmake) so that it
// exports none; these tests check the result on the loaded process.
#include <gtest/gtest.h>

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <QByteArray>

namespace {

#if defined(__x86_64__)
constexpr unsigned kJumpSlot = R_X86_64_JUMP_SLOT, kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr unsigned kJumpSlot = R_AARCH64_JUMP_SLOT, kGlobDat = R_AARCH64_GLOB_DAT;
#else
constexpr unsigned kJumpSlot = ~0u, kGlobDat = ~0u; // relocation checks find nothing
#endif

std::string demangle(const std::string &name)
{
    int status = 0;
    std::unique_ptr<char, void (*)(void *)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                              std::free);
    return status == 0 && d ? std::string(d.get()) + " (" + name + ")" : name;
}

/// One dynamic symbol as the file's .dynsym and version sections describe it.
struct DynSymbol {
    std::string name;
    std::string version; ///< "" when unversioned (or the object's base version)
    bool defined = false;
    bool exported = false; ///< defined, global or weak, default/protected visibility, not a hidden version
};

/// A loaded object: where it lies in memory and its dynamic symbols and symbol relocations.
struct LoadedObject {
    std::string name; ///< as the dynamic linker has it ("" for the program)
    ElfW(Addr) base = 0;
    std::vector<std::pair<ElfW(Addr), ElfW(Addr)>> segments;
    std::vector<DynSymbol> symbols;
    struct Reloc {
        ElfW(Addr) offset;
        unsigned type;
        std::size_t symbol;
    };
    std::vector<Reloc> relocs;

    bool contains(ElfW(Addr) a) const
    {
        for (const auto &[lo, hi] : segments)
            if (a >= lo && a < hi)
                return true;
        return false;
    }
    bool isQt(int major) const { return name.find("libQt" + std::to_string(major)) != std::string::npos; }
    /// Qt 5 code: a Qt 5 library, or an object built against one (OpenCV's highgui).
    bool isQt5Side() const
    {
        if (isQt(5))
            return true;
        for (const DynSymbol &s : symbols)
            if (!s.defined && s.version.rfind("Qt_5", 0) == 0)
                return true;
        return false;
    }
    std::string label() const { return name.empty() ? std::string("the executable") : name; }
};

/// Reads the dynamic symbols, their versions and the symbol relocations from the object's file.
bool readElf(const std::string &path, LoadedObject &obj)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(ElfW(Ehdr)))) {
        ::close(fd);
        return false;
    }
    void *map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED)
        return false;
    const auto *bytes = static_cast<const char *>(map);
    const auto *eh = reinterpret_cast<const ElfW(Ehdr) *>(bytes);
    const auto *sh = reinterpret_cast<const ElfW(Shdr) *>(bytes + eh->e_shoff);
    const ElfW(Shdr) *dynsym = nullptr, *versym = nullptr, *verneed = nullptr, *verdef = nullptr;
    std::size_t dynsymIndex = 0;
    for (std::size_t i = 0; i < eh->e_shnum; ++i) {
        switch (sh[i].sh_type) {
        case SHT_DYNSYM: dynsym = &sh[i]; dynsymIndex = i; break;
        case SHT_GNU_versym: versym = &sh[i]; break;
        case SHT_GNU_verneed: verneed = &sh[i]; break;
        case SHT_GNU_verdef: verdef = &sh[i]; break;
        default: break;
        }
    }
    if (dynsym) {
        const char *strtab = bytes + sh[dynsym->sh_link].sh_offset;
        // Version index -> name, from the needed versions and this object's own.
        std::vector<std::string> versionNames(1, std::string());
        auto setName = [&](std::size_t ndx, const char *n) {
            if (versionNames.size() <= ndx)
                versionNames.resize(ndx + 1);
            versionNames[ndx] = n;
        };
        if (verneed) {
            const char *p = bytes + verneed->sh_offset;
            for (std::size_t i = 0; i < verneed->sh_info; ++i) {
                const auto *vn = reinterpret_cast<const ElfW(Verneed) *>(p);
                const char *q = p + vn->vn_aux;
                for (std::size_t j = 0; j < vn->vn_cnt; ++j) {
                    const auto *va = reinterpret_cast<const ElfW(Vernaux) *>(q);
                    setName(va->vna_other, strtab + va->vna_name);
                    q += va->vna_next;
                }
                p += vn->vn_next;
            }
        }
        if (verdef) {
            const char *p = bytes + verdef->sh_offset;
            for (std::size_t i = 0; i < verdef->sh_info; ++i) {
                const auto *vd = reinterpret_cast<const ElfW(Verdef) *>(p);
                const auto *va = reinterpret_cast<const ElfW(Verdaux) *>(p + vd->vd_aux);
                // The base version (the object's soname) counts as unversioned.
                if (!(vd->vd_flags & VER_FLG_BASE))
                    setName(vd->vd_ndx, strtab + va->vda_name);
                p += vd->vd_next;
            }
        }
        const auto *syms = reinterpret_cast<const ElfW(Sym) *>(bytes + dynsym->sh_offset);
        const std::size_t count = dynsym->sh_size / sizeof(ElfW(Sym));
        const auto *vers = versym ? reinterpret_cast<const ElfW(Half) *>(bytes + versym->sh_offset) : nullptr;
        obj.symbols.resize(count);
        for (std::size_t i = 0; i < count; ++i) {
            DynSymbol &s = obj.symbols[i];
            s.name = strtab + syms[i].st_name;
            const unsigned ndx = vers ? (vers[i] & 0x7fff) : 0;
            const bool hiddenVersion = vers && (vers[i] & 0x8000);
            s.version = ndx < versionNames.size() ? versionNames[ndx] : std::string();
            s.defined = syms[i].st_shndx != SHN_UNDEF;
            const unsigned bind = ELF64_ST_BIND(syms[i].st_info);
            const unsigned vis = ELF64_ST_VISIBILITY(syms[i].st_other);
            s.exported = s.defined && !hiddenVersion && (bind == STB_GLOBAL || bind == STB_WEAK)
                         && (vis == STV_DEFAULT || vis == STV_PROTECTED);
        }
        for (std::size_t i = 0; i < eh->e_shnum; ++i) {
            if (sh[i].sh_type != SHT_RELA || sh[i].sh_link != dynsymIndex)
                continue;
            const auto *r = reinterpret_cast<const ElfW(Rela) *>(bytes + sh[i].sh_offset);
            for (std::size_t j = 0; j < sh[i].sh_size / sizeof(ElfW(Rela)); ++j)
                obj.relocs.push_back({r[j].r_offset, static_cast<unsigned>(ELF64_R_TYPE(r[j].r_info)),
                                      static_cast<std::size_t>(ELF64_R_SYM(r[j].r_info))});
        }
    }
    ::munmap(map, static_cast<std::size_t>(st.st_size));
    return dynsym != nullptr;
}

/// Every object in this process, in the dynamic linker's order (the program first).
const std::vector<LoadedObject> &loadedObjects()
{
    static const std::vector<LoadedObject> objects = [] {
        std::vector<LoadedObject> out;
        dl_iterate_phdr(
            [](dl_phdr_info *info, std::size_t, void *data) {
                LoadedObject obj;
                obj.name = info->dlpi_name ? info->dlpi_name : "";
                obj.base = info->dlpi_addr;
                for (int i = 0; i < info->dlpi_phnum; ++i)
                    if (info->dlpi_phdr[i].p_type == PT_LOAD)
                        obj.segments.emplace_back(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr,
                                                  info->dlpi_addr + info->dlpi_phdr[i].p_vaddr
                                                      + info->dlpi_phdr[i].p_memsz);
                auto &list = *static_cast<std::vector<LoadedObject> *>(data);
                const bool program = list.empty();
                if (readElf(program ? std::string("/proc/self/exe") : obj.name, obj))
                    list.push_back(std::move(obj)); // the vDSO has no file: left out
                return 0;
            },
            &out);
        return out;
    }();
    return objects;
}

const LoadedObject *findLoaded(const std::string &soname)
{
    for (const LoadedObject &o : loadedObjects())
        if (o.name.find(soname) != std::string::npos)
            return &o;
    return nullptr;
}

const LoadedObject *owner(ElfW(Addr) a)
{
    for (const LoadedObject &o : loadedObjects())
        if (o.contains(a))
            return &o;
    return nullptr;
}

/// Where a symbol relocation of `obj` points now (0 when not a resolved GOT slot).
ElfW(Addr) resolvedTarget(const LoadedObject &obj, const LoadedObject::Reloc &r)
{
    if (r.type != kJumpSlot && r.type != kGlobDat)
        return 0;
    return *reinterpret_cast<const ElfW(Addr) *>(obj.base + r.offset);
}

class QtIsolation : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_NE(findLoaded("libQt6Core.so.6"), nullptr) << "this test executable links Qt 6";
        if (!findLoaded("libQt5Core.so.5"))
            GTEST_SKIP() << "no Qt 5 in this process (LibTorch without OpenCV's highgui): nothing to keep apart";
    }
};

} // namespace

TEST_F(QtIsolation, BothQtVersionsAreLoaded)
{
    // SetUp has checked both; this names them, and uses Qt 6 so that it is really needed.
    EXPECT_NE(findLoaded("libQt5Core.so.5"), nullptr);
    EXPECT_NE(findLoaded("libQt6Core.so.6"), nullptr);
    EXPECT_EQ(QByteArray("Qt").append(" 6"), QByteArray("Qt 6"));
}

TEST_F(QtIsolation, NothingOutsideQt5OffersAnUnversionedDefinitionOfWhatQt5Imports)
{
    // What the Qt 5 side imports with a Qt_5 version ...
    std::set<std::string> qt5Imports;
    for (const LoadedObject &o : loadedObjects())
        if (o.isQt5Side())
            for (const DynSymbol &s : o.symbols)
                if (!s.defined && s.version.rfind("Qt_5", 0) == 0)
                    qt5Imports.insert(s.name);
    ASSERT_FALSE(qt5Imports.empty());
    // ... an unversioned export elsewhere would satisfy (the program is searched first).
    std::vector<std::string> offers;
    for (const LoadedObject &o : loadedObjects()) {
        if (o.isQt5Side())
            continue;
        for (const DynSymbol &s : o.symbols)
            if (s.exported && s.version.empty() && qt5Imports.count(s.name))
                offers.push_back(o.label() + ": " + demangle(s.name));
    }
    EXPECT_TRUE(offers.empty()) << "Qt 5 would bind to these instead of libQt5*:\n"
                                << ::testing::PrintToString(offers);
}

TEST_F(QtIsolation, QtReferencesResolveToTheirOwnQt)
{
    std::size_t checked = 0;
    std::vector<std::string> wrong;
    for (const LoadedObject &o : loadedObjects()) {
        for (const LoadedObject::Reloc &r : o.relocs) {
            if (r.symbol == 0 || r.symbol >= o.symbols.size())
                continue;
            const DynSymbol &s = o.symbols[r.symbol];
            const bool wants5 = s.version.rfind("Qt_5", 0) == 0, wants6 = s.version.rfind("Qt_6", 0) == 0;
            if (s.defined || !(wants5 || wants6))
                continue;
            const ElfW(Addr) target = resolvedTarget(o, r);
            const LoadedObject *to = target ? owner(target) : nullptr;
            if (!to || to == &o)
                continue; // not resolved yet (lazy binding: still the object's own PLT)
            ++checked;
            if ((wants5 && !to->isQt(5)) || (wants6 && to->isQt(5)))
                wrong.push_back(o.label() + ": " + demangle(s.name) + "@" + s.version + " -> " + to->label());
        }
    }
    EXPECT_GT(checked, 0u);
    EXPECT_TRUE(wrong.empty()) << ::testing::PrintToString(wrong);
}

TEST_F(QtIsolation, Qt5WidgetsAppendsWithQt5Core)
{
    // The call that crashed: Qt5Widgets' static initialiser appends to a QByteArray,
    // so its slot for QByteArray::append(const char *) is bound by now.
    const LoadedObject *widgets = findLoaded("libQt5Widgets.so.5");
    if (!widgets)
        GTEST_SKIP() << "libQt5Widgets not loaded";
    bool found = false;
    for (const LoadedObject::Reloc &r : widgets->relocs) {
        if (r.symbol == 0 || r.symbol >= widgets->symbols.size()
            || widgets->symbols[r.symbol].name != "_ZN10QByteArray6appendEPKc")
            continue;
        const ElfW(Addr) target = resolvedTarget(*widgets, r);
        const LoadedObject *to = target ? owner(target) : nullptr;
        if (!to || to == widgets)
            continue;
        found = true;
        EXPECT_NE(to->name.find("libQt5Core.so.5"), std::string::npos) << "bound to " << to->label();
    }
    EXPECT_TRUE(found) << "no bound slot for QByteArray::append(const char *) in libQt5Widgets";
}
