#pragma once
/// \file family.h
/// The registry of encoder families: what the loader, `import-checkpoint`,
/// `verify-fixture` and the probing baselines need to know about a family
/// without including its files. Each family fills one EncoderFamily in its own
/// folder (`core/encoders/<family>/`); `core/registry/families.cpp` is the one
/// list of them, so adding a family touches no other family's files.
/// Torch-free header.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/encoders/encoder.h"
#include "core/encoders/fixturereport.h"
#include "core/model/modelfile.h"
#include "core/model/tensordata.h"

namespace treelens {


/// What `import-checkpoint` hands a family: the checkpoint's tensors (already
/// read by the restricted unpickler) and the optional side files, as text.
struct ImportRequest {
    TensorMap tensors;
    std::string checkpointPath;  ///< for messages and the provenance record
    std::string note;            ///< what the checkpoint reader said about the file
    std::string vocabText;       ///< --vocab file contents ("" = none given)
    std::string vocabPath;
    std::string configJson;      ///< --config file contents ("" = none given)
    std::string configPath;
    std::string name;            ///< model name for the metadata ("" = the checkpoint's stem)
    int heads = 0;               ///< --heads (0 = not given)
    std::string submodel;        ///< --submodel: which model of a checkpoint holding several ("" = the only one)
};

/// What `verify-fixture` hands a family: a reference fixture directory
/// (docs/model-files.md, "Reference fixtures") already read.
struct FixtureRequest {
    std::string dir;
    TensorMap stateDict;         ///< state_dict.pt, read by the checkpoint reader
    std::string stateDictPath;
    std::string note;            ///< what the checkpoint reader said
    std::string configJson;      ///< config.json (strictly parsed before)
    std::string configPath;
    std::string inputsJson;      ///< inputs.json
    std::string inputsPath;
};

/// One encoder family. Every function may be empty when the family lacks it.
struct EncoderFamily {
    std::string name;            ///< the "family" value of treelens.config
    /// Builds the encoder from a loaded model file of this family.
    std::function<Result<std::unique_ptr<Encoder>>(const ModelFile &, const DeviceConfig &)> create;
    /// Converts a checkpoint into a native model file (validated; not yet written).
    std::function<Result<ModelFile>(ImportRequest)> importCheckpoint;
    /// The same configuration as `file` with freshly initialised weights drawn from `seed`.
    std::function<Result<ModelFile>(const ModelFile &file, unsigned seed)> randomWeightsLike;
    /// One line for `import-checkpoint`'s report ("4 layers, d_model 128, ...").
    std::function<std::string(const ModelFile &)> summary;
    /// Runs the fixture's inputs through models imported by `importCheckpoint`
    /// and returns every tensor the fixture's README names, under its names and
    /// shapes (F32 or I64).
    std::function<Result<TensorMap>(const FixtureRequest &)> computeFixture;
    /// A model folder in another library's layout that this family opens (a Hugging Face
    /// folder): nullopt when `dir` is not of that layout, else the folder read as a model
    /// file of this family (or why it cannot be). `--model DIR` and everything that loads
    /// an encoder ask every family before reading a TreeLens model.
    std::function<std::optional<Result<ModelFile>>(const std::string &dir)> readFolder;
    /// Whether `dir` is a folder of the layout readFolder reads (its config only, no weights).
    std::function<bool(const std::string &dir)> claimsFolder;
    /// `verify-fixture` on a fixture folder of the family's own layout (not config.json +
    /// state_dict.pt + inputs.json): nullopt when `dir` is not of that layout, else the
    /// report, with the computed values in expected.json's layout in `computedJson`.
    std::function<std::optional<Result<FixtureReport>>(const std::string &dir, std::string *computedJson)> verifyFolderFixture;
};

/// Every family this build knows, in a fixed order.
const std::vector<EncoderFamily> &encoderFamilies();
/// nullptr for an unknown name.
const EncoderFamily *findEncoderFamily(const std::string &name);
/// The family that opens `dir` as a folder of another library's layout (claimsFolder),
/// nullptr when none does (a TreeLens model directory, a plain folder, a file).
const EncoderFamily *folderFamily(const std::string &dir);
/// The "family" value of a model file's treelens.config ("" when absent; an error when it is not JSON).
Result<std::string> modelFamilyOf(const ModelFile &file);

} // namespace treelens
