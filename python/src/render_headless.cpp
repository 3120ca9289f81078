// The views without the GUI (TREELENS_BUILD_GUI=OFF): render.h's functions say so.
#include "python/src/render.h"

namespace treelens {

Result<std::string> renderAnalysisView(const Sentence &, std::shared_ptr<const Analysis>, const std::string &, int, int,
                                       const std::string &, int, const std::string &)
{
    return Error{"treelens was built without the GUI (TREELENS_BUILD_GUI=OFF): the views cannot be rendered"};
}

std::string defaultAnalysisView(const Sentence &, const Analysis *) { return {}; }

std::vector<std::string> renderableViews() { return {}; }

} // namespace treelens
