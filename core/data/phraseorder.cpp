// The phrases of a constituency tree in post-order (see phraseorder.h).
#include "core/data/phraseorder.h"

#include <cstddef>

namespace treelens {

std::vector<std::pair<int, int>> phrasePostOrder(const ConstituencyTree &tree)
{
    std::vector<std::pair<int, int>> order;
    if (tree.empty())
        return order;
    auto phrasal = [&](int n) {
        if (tree.node(n).terminal || tree.isPreterminal(n))
            return false;
        const auto [s, e] = tree.span(n);
        return e > s;
    };
    const int root = tree.contentRoot();
    if (!phrasal(root))
        return order;
    // (node, next child to visit, level)
    struct Frame {
        int node;
        std::size_t next;
        int level;
    };
    std::vector<Frame> stack{{root, 0, 0}};
    while (!stack.empty()) {
        Frame &f = stack.back();
        const auto &kids = tree.node(f.node).children;
        if (f.next < kids.size()) {
            const int c = kids[f.next++];
            if (phrasal(c)) {
                const int level = f.level + 1;
                stack.push_back({c, 0, level}); // f is not used after this push
            }
            continue;
        }
        order.push_back({f.node, f.level});
        stack.pop_back();
    }
    return order;
}

} // namespace treelens
