# Sources of treelens_core that need neither LibTorch nor Link Grammar. Listed
# here once so the fuzz build (tests/fuzz, compiled with clang + libFuzzer) can
# compile exactly the same readers as the product.
set(TREELENS_CORE_PLAIN_SOURCES
  base/fileio.cpp
  base/inputlimits.cpp
  base/jsonstrict.cpp
  base/numbering.cpp
  base/strings.cpp
  base/utf8.cpp
  data/constituencytree.cpp
  data/dependencytree.cpp
  data/sentence.cpp
  formats/conllu.cpp
  formats/corpus.cpp
  formats/corpusstream.cpp
  formats/plaintext.cpp
  formats/labelledtext.cpp
  formats/ptb.cpp
  formats/treelensjson.cpp
  formats/latex.cpp
  formats/analysisjson.cpp
  text/tokenizer.cpp
  parsing/headrules.cpp
  parsing/treedecoders.cpp
  parsing/neural/parserencoderconfig.cpp
  parsing/chunkingparser.cpp
  parsing/externalparser.cpp
  eval/bracketeval.cpp
  eval/depeval.cpp
  eval/tokeneval.cpp
  eval/textspans.cpp
  eval/rawtexteval.cpp
  model/tensordata.cpp
  model/safetensors.cpp
  model/modelfile.cpp
  model/pickle.cpp
  encoders/treetransformer/induction.cpp
  encoders/treetransformer/vocabulary.cpp
  training/pretraincorpus.cpp
  training/recipe.cpp
  training/trainprogress.cpp
  probing/attentiontree.cpp
  probing/probetasks.cpp
  formats/pairs.cpp
  eval/paireval.cpp
)
list(TRANSFORM TREELENS_CORE_PLAIN_SOURCES PREPEND "${CMAKE_CURRENT_LIST_DIR}/")
