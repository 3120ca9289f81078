#pragma once
// A model whose forward pass throws (issue 44, errors in one place): the Hugging Face BERT
// reference folder with its tokenizer's single-sentence template giving the text token type
// 7, while the model has 2 token types. Everything loads; LibTorch's embedding lookup then
// throws c10::Error ("index out of range in self") inside the forward. The tests check that
// the error comes back as a Status (analyze, a job, the Python module), never as an
// exception or "internal error". Needs ../shared (the fixture): "" without it.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "testutil.h"

namespace treelens::test {

inline std::string faultyHfModel(const std::string &dir)
{
    namespace fs = std::filesystem;
    const std::string source = sharedPath("fixtures/hf-transformers-reference/bert-tiny-random");
    if (source.empty() || !pathExists(source))
        return {};
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char *f : {"config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt"})
        fs::copy_file(fs::path(source) / f, fs::path(dir) / f);
    std::ifstream in(fs::path(source) / "tokenizer.json");
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json t = nlohmann::json::parse(ss.str());
    for (auto &piece : t["post_processor"]["single"])
        if (piece.contains("Sequence"))
            piece["Sequence"]["type_id"] = 7;
    std::ofstream(fs::path(dir) / "tokenizer.json") << t.dump();
    return dir;
}

} // namespace treelens::test
