#!/usr/bin/env bash
# Renders every view for three sentences (10, 40 and 120 words) with the
# shipped default model, and the Dependency-Transformer's views with its polarity
# model, into docs/screenshots/ through `treelens --export-view` (offscreen, no
# display needed). Usage: scripts/screenshots.sh [BUILD_DIR] [DPI]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
dpi=${2:-110}
gui="$build/app/treelens"
out=docs/screenshots
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME=$(mktemp -d)   # a clean settings file: default view modes

short="The old man saw a red kite near the river."
medium="After the long meeting on Thursday, the committee members who had argued about the budget for hours finally agreed that the new library should be built next to the old school, where children could reach it on foot."
long="When the first settlers arrived in the narrow valley more than two hundred years ago, they found a wide river that flooded every spring, dense forests full of deer and wolves, and a small village of farmers who had grown barley and beans on the terraced hills for generations; the newcomers, who had travelled for months across the mountains with their cattle and their tools, built wooden houses along the river bank, cleared the nearest forests for fields, and learned from their neighbours which slopes stayed dry in the wet season, which springs never froze in the long winters, and how the old terraces had to be repaired each autumn before the heavy rains came down from the northern peaks."

for name in short medium long; do
  text=${!name}
  words=$(echo "$text" | wc -w)
  for view in constituency dependency prior attention overview links; do
    file="$out/$name-$view.png"
    "$gui" --sentence "$text" --export-view "$view" --layer 3 --head 1 --dpi "$dpi" --out "$file"
    echo "$file ($words words)"
  done
done

# The Dependency-Transformer (issue 14): its relation mode of the dependency view
# (combined and relation attention), the relation matrix, one head's gate and the
# layers x heads gate overview. Layer 2 head 4 is the head whose gate opens most on
# the tree's arcs for this sentence (the overview shows it).
dt=resources/models/dependency-transformer-en-polarity.safetensors
review="The film is not as funny as its trailer , but the actors save it ."
for view in dependency relations gate gates attention; do
  file="$out/dt-$view.png"
  "$gui" --sentence "$review" --model "$dt" --export-view "$view" --layer 2 --head 4 --dpi "$dpi" --out "$file"
  echo "$file"
done
"$gui" --sentence "$review" --model "$dt" --export-view dependency --attention relation --layer 2 --head 4 --dpi "$dpi" \
  --out "$out/dt-dependency-relation.png"
echo "$out/dt-dependency-relation.png"

# The Tree Aggregation Transformer (issue 15) in the pair workbench, on WikiQA test
# (when ../shared is there): both sides' constituency trees with the node attention,
# the aggregation stopped at step 3 (the level being aggregated outlined, the phrases
# above it waiting), and the phrase view of the question's root in this pair and in
# the pair with a candidate of the other gold label.
tat=resources/models/tat-en-wikiqa.safetensors
if [ -d ../shared/data/wikiqa/test ] && [ -f "$tat" ]; then
  "$gui" --pairs ../shared/data/wikiqa/test --pair-systems "$tat",idf --pair-trees constituency \
    --pair-detail phrase --tat-step 3 --grab-pairs "$out/pairs-tat-step.png"
  "$gui" --pairs ../shared/data/wikiqa/test --pair-systems "$tat",idf --pair-trees constituency \
    --pair-detail phrase --grab-pairs "$out/pairs-tat-phrase.png"
  echo "$out/pairs-tat-step.png $out/pairs-tat-phrase.png $out/pairs-tat-phrase-phrase-view.png"
fi

# The recursive tree models (issue 16): the shipped DTT + edge labels on the review, its
# composition weights on the dependency arcs (edge traversal on the labels) and the
# Composition tab, all done and stopped at step 2; the binary Tree-LSTM and the CTT of the
# polarity experiments (when they were trained: scripts/run_recursive_experiments.sh) on
# their constituency trees; the shipped Tree-LSTM with attention in the pair workbench on
# RTE 3 test (each tree's attention takes its query from the other sentence).
dtte=resources/models/dtt-edges-en-polarity.safetensors
for view in dependency composition; do
  "$gui" --sentence "$review" --model "$dtte" --export-view "$view" --dpi "$dpi" --out "$out/rec-dtte-$view.png"
  echo "$out/rec-dtte-$view.png"
done
"$gui" --sentence "$review" --model "$dtte" --export-view composition --step 2 --dpi "$dpi" --out "$out/rec-dtte-composition-step2.png"
echo "$out/rec-dtte-composition-step2.png"
for m in ctt tlbin; do
  model=build/train/rec-$m-s1/model.safetensors
  if [ -f "$model" ]; then
    "$gui" --sentence "$review" --model "$model" --export-view constituency --dpi "$dpi" --out "$out/rec-$m-constituency.png"
    "$gui" --sentence "$review" --model "$model" --export-view composition --dpi "$dpi" --out "$out/rec-$m-composition.png"
    echo "$out/rec-$m-constituency.png $out/rec-$m-composition.png"
  fi
done
tl=resources/models/tree-lstm-attention-en-rte.safetensors
if [ -f ../shared/data/rte/rte3_test.xml ]; then
  "$gui" --pairs ../shared/data/rte/rte3_test.xml --pair-systems "$tl" --grab-pairs "$out/pairs-tree-lstm.png"
  "$gui" --pairs ../shared/data/rte/rte3_test.xml --pair-systems "$tl" --tat-step 1 --grab-pairs "$out/pairs-tree-lstm-step1.png"
  echo "$out/pairs-tree-lstm.png $out/pairs-tree-lstm-step1.png"
fi
