#pragma once
// The conformance matrix (docs/conformance.md): every model a user can open,
// through every door that opens a model. A model joins with one line in
// models(); a command with its doors in its entry of treelens-cli's command table
// (app/cli/commands.cpp); a view is checked for every model whose line lists it.
// Each cell expects what a user should see: a result,
// or a one-line refusal that says why (exit 1); never a signal, a hang, a blank
// figure or a silent fallback.
#include <string>
#include <vector>

#include "testutil.h"

namespace treelens::conformance {

enum class Kind {
    Sentence, ///< analyses one sentence
    Pair      ///< reads sentence pairs only (analyze TEXT refuses, naming --pairs)
};

struct ModelLine {
    const char *name;    ///< the test name (letters, digits, underscores)
    /// "shipped/FILE" (resources/models), "fixture/FILE" (made by make_models.sh), "hf/DIR" (a Hugging Face
    /// folder of ../shared/fixtures/hf-transformers-reference, opened as it is) or "hfd/DIR" (a decoder
    /// language model's folder of ../shared/fixtures/hf-decoders-reference)
    const char *file;
    Kind kind;
    /// What `analyze TEXT` prints for it (a line's start), for a sentence model.
    const char *text;
    /// The views its analysis of one sentence draws (comma-separated); the others are refused.
    const char *views;
    /// A refusal this model gives every door that reads the test data, or "" (a fixture
    /// model's tiny vocabularies: an edge label it lacks).
    const char *refuses = "";
    /// `probe`'s refusal, or "" when it probes the model (a pair model whose encoder reads
    /// both sentences together has no states of one sentence).
    const char *probeRefuses = "";
    /// `explain`'s refusal (Integrated Gradients), or "" when it explains the model's
    /// prediction (a model without one).
    const char *explainRefuses = "";
    /// Its heads can be switched off (`--ablate`): every model with attention heads (not a Tree-LSTM).
    bool ablates = false;
    /// A masked language model with its vocabulary head: minimal pairs score it by its
    /// pseudo-log-likelihood (a decoder's sentence score comes with its surprisal view).
    bool scoresSentences = false;
    /// Minimal pairs can score it: a decoder (its surprisal view) or a masked LM with its head.
    bool givesSentenceScore() const
    {
        return scoresSentences || (std::string(",") + views + ",").find(",surprisal,") != std::string::npos;
    }
};

inline constexpr const char *kNoPrediction = "makes no prediction to explain";
/// A decoder language model's views: the trees (with its surprisal band), its causal attention, its
/// pieces, the heads overview and its surprisal per word.
inline constexpr const char *kDecoderViews = "constituency,dependency,attention,pieces,overview,surprisal";

inline const std::vector<ModelLine> &models()
{
    static const std::vector<ModelLine> lines = {
        // The shipped models.
        {"tree_transformer_en_small", "shipped/tree-transformer-en-small.safetensors", Kind::Sentence, "tree:",
         "constituency,dependency,prior,attention,overview,links", "", "", kNoPrediction, true},
        // A masked LM shipped with its vocabulary projection: minimal pairs score it.
        {"transformer_en_small", "shipped/transformer-en-small.safetensors", Kind::Sentence, "no constituent prior",
         "constituency,dependency,attention,overview", "", "", kNoPrediction, true, true},
        {"tree_transformer_en_small_mlm", "shipped/tree-transformer-en-small-mlm.safetensors", Kind::Sentence, "tree:",
         "constituency,dependency,prior,attention,overview,links", "", "", kNoPrediction, true, true},
        {"dependency_transformer_en_polarity", "shipped/dependency-transformer-en-polarity.safetensors", Kind::Sentence,
         "prediction:", "constituency,dependency,attention,overview,relations,gate,gates", "", "", "", true},
        {"dependency_transformer_en_trec", "shipped/dependency-transformer-en-trec.safetensors", Kind::Sentence, "prediction:",
         "constituency,dependency,attention,overview,relations,gate,gates", "", "", "", true},
        {"dependency_transformer_en_rte", "shipped/dependency-transformer-en-rte.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"dtt_edges_en_polarity", "shipped/dtt-edges-en-polarity.safetensors", Kind::Sentence, "prediction:",
         "constituency,dependency,composition", "", "", "", true},
        {"ggsa_en_wikiqa", "shipped/ggsa-en-wikiqa.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"iggsa_en_wikiqa", "shipped/iggsa-en-wikiqa.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"tat_en_wikiqa", "shipped/tat-en-wikiqa.safetensors", Kind::Pair, "", "", "", "probe its pair vectors with treelens-cli probe-pairs",
         "", true},
        {"tree_lstm_attention_en_rte", "shipped/tree-lstm-attention-en-rte.safetensors", Kind::Pair, "", "", "", ""},
        // One model per family from each reference fixture (import-checkpoint; make_models.sh).
        // The official fixture's Tree Transformer keeps its vocabulary projection: a masked LM that scores sentences.
        {"fixture_tree_transformer", "fixture/fixture-tree-transformer.safetensors", Kind::Sentence, "tree:",
         "constituency,dependency,prior,attention,overview,links", "", "", kNoPrediction, true, true},
        {"fixture_dependency_transformer", "fixture/fixture-dependency-transformer.safetensors", Kind::Sentence,
         "prediction:", "constituency,dependency,attention,overview,relations,gate,gates", "", "", "", true},
        {"fixture_ggsa", "fixture/fixture-ggsa.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"fixture_iggsa", "fixture/fixture-iggsa.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"fixture_tree_aggregation_transformer", "fixture/fixture-tree-aggregation-transformer.safetensors", Kind::Pair, "",
         "", "", "probe its pair vectors with treelens-cli probe-pairs", "", true},
        {"fixture_rec_ctt", "fixture/fixture-rec-ctt.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"fixture_rec_dtt", "fixture/fixture-rec-dtt.safetensors", Kind::Pair, "", "", "", "", "", true},
        {"fixture_rec_dtte", "fixture/fixture-rec-dtte.safetensors", Kind::Pair, "", "",
         "is not in the model's edge-label table", "", "", true},
        {"fixture_rec_treelstm_cs", "fixture/fixture-rec-treelstm.cs.safetensors", Kind::Pair, "", "", "", ""},
        {"fixture_rec_treelstm_bin", "fixture/fixture-rec-treelstm.bin.safetensors", Kind::Pair, "", "", "", ""},
        // Hugging Face folders as the library writes them (the pretrained-transformer family), opened in place.
        {"hf_bert_tiny_random", "hf/bert-tiny-random", Kind::Sentence, "holds:", "constituency,dependency,attention,pieces,overview",
         "", "", kNoPrediction, true},
        {"hf_roberta_tiny_random", "hf/roberta-tiny-random", Kind::Sentence, "holds:",
         "constituency,dependency,attention,pieces,overview", "", "", kNoPrediction, true},
        // Hugging Face decoder language models (../shared/fixtures/hf-decoders-reference), opened in place:
        // they predict the next word, so explain attributes the last word's log-probability.
        {"hfd_gpt2_tiny_random", "hfd/gpt2-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
        {"hfd_pythia_tiny_random", "hfd/pythia-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
        {"hfd_llama2_tiny_random", "hfd/llama2-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
        {"hfd_llama3_tiny_random", "hfd/llama3-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
        {"hfd_qwen2_tiny_random", "hfd/qwen2-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
        {"hfd_qwen3_tiny_random", "hfd/qwen3-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
        {"hfd_gemma_tiny_random", "hfd/gemma-tiny-random", Kind::Sentence, "holds:", kDecoderViews, "", "", "", true},
    };
    return lines;
}

/// The model's file; "" when it is not there (a fixture model without ../shared).
inline std::string modelPath(const ModelLine &m)
{
    const std::string f = m.file;
    if (f.rfind("hf/", 0) == 0 || f.rfind("hfd/", 0) == 0) {
        const bool decoder = f.rfind("hfd/", 0) == 0;
        const std::string p = test::sharedPath(std::string(decoder ? "fixtures/hf-decoders-reference/" : "fixtures/hf-transformers-reference/") +
                                               f.substr(decoder ? 4 : 3));
        return !p.empty() && test::pathExists(p) ? p : std::string();
    }
    const std::string p = f.rfind("shipped/", 0) == 0 ? std::string(TREELENS_SOURCE_DIR) + "/resources/models/" + f.substr(8)
                                                       : std::string(TREELENS_CONFORMANCE_MODELS) + "/" + f.substr(8);
    return test::pathExists(p) ? p : std::string();
}

/// The test data every door reads (tests/data/conformance): two sentences with gold
/// dependency and constituency trees, and four ranking pairs of two questions.
inline std::string goldCorpus() { return test::testData("conformance/gold.conllu"); }
inline std::string pairCorpus() { return test::testData("conformance/pairs.tsv"); }
/// Three minimal pairs (good<TAB>bad<TAB>phenomenon) for the minimal-pairs doors.
inline std::string minimalPairsFile() { return test::testData("conformance/minimal-pairs.tsv"); }
/// The gold corpus' two trees as PTB (eval-induction reads PTB).
inline std::string goldPtb() { return test::testData("conformance/gold.mrg"); }
inline const char *kSentence = "The old man saw a red kite .";

inline std::vector<std::string> split(const std::string &list)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : list + ",") {
        if (c == ',') {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    return out;
}

} // namespace treelens::conformance
