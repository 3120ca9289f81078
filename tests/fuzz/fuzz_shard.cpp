// Fuzzes the shard outputs' reader and merge (core/formats/shard.h): the input is a
// file's bytes. Checks: whatever reads back as a complete shard output prints back (its
// shard line, body and end line) to a file that reads the same; a one-file merge either
// refuses or gives the body; "I/N" specs are parsed without crashing and round-trip.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "core/formats/shard.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace treelens;
    if (size > 1 << 16)
        return 0;
    const std::string text(reinterpret_cast<const char *>(data), size);
    if (auto spec = parseShardSpec(text.substr(0, text.find('\n')))) {
        auto again = parseShardSpec(spec->str());
        if (!again || again->index != spec->index || again->count != spec->count)
            std::abort();
        const ShardRange r = shardRange(size, *spec, 1 + size % 7);
        if (r.begin > r.end || r.end > size)
            std::abort();
    }
    char path[] = "/tmp/fuzz-shard-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    close(fd);
    std::ofstream(path, std::ios::binary) << text;
    auto f = readShardFile(path);
    if (f && f->complete) {
        const std::string again = shardHeaderLine(f->header) + f->body + shardEndLine(f->records);
        std::ofstream(path, std::ios::binary | std::ios::trunc) << again;
        auto g = readShardFile(path);
        if (!g || !g->complete || g->body != f->body || g->records != f->records || g->header.begin != f->header.begin ||
            g->header.end != f->header.end || g->header.options != f->header.options)
            std::abort();
        auto m = mergeShards({path});
        if (m && m->records != f->records)
            std::abort();
    }
    std::remove(path);
    return 0;
}
