#include "small/view/graphviz.hpp"

#include <dlfcn.h>

#include <mutex>

namespace small {

namespace {

// Graphviz's C API as its headers declare it (gvc.h, cgraph.h), for the few
// functions used; the structs stay opaque.
struct GVC_s;
struct Agraph_s;
struct Gvc {
    GVC_s* (*gvContext)();
    int (*gvFreeContext)(GVC_s*);
    Agraph_s* (*agmemread)(const char*);
    int (*agclose)(Agraph_s*);
    int (*gvLayout)(GVC_s*, Agraph_s*, const char*);
    int (*gvFreeLayout)(GVC_s*, Agraph_s*);
    int (*gvRenderData)(GVC_s*, Agraph_s*, const char*, char**, unsigned int*);
    void (*gvFreeRenderData)(char*);
};

constexpr const char* kLibrary = "libgvc.so.6";

const Result<Gvc>& load_gvc() {
    static const Result<Gvc> loaded = []() -> Result<Gvc> {
        void* handle = ::dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            Error e = Error::system(std::string("cannot load ") + kLibrary + " (" + ::dlerror() +
                                    "): drawing the graph as SVG needs Graphviz");
            e.hint = "install Debian's libgvc6 package (apt-get install libgvc6), or use --format dot or mermaid";
            return e;
        }
        Gvc g{};
        const char* missing = nullptr;
        const auto resolve = [&](auto& fn, const char* name) {
            if (missing) return;
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
            if (!fn) missing = name;
        };
        resolve(g.gvContext, "gvContext");
        resolve(g.gvFreeContext, "gvFreeContext");
        resolve(g.agmemread, "agmemread");  // libcgraph, which libgvc brings in
        resolve(g.agclose, "agclose");
        resolve(g.gvLayout, "gvLayout");
        resolve(g.gvFreeLayout, "gvFreeLayout");
        resolve(g.gvRenderData, "gvRenderData");
        resolve(g.gvFreeRenderData, "gvFreeRenderData");
        if (missing) return Error::system(std::string(kLibrary) + " has no " + missing + "; install Graphviz 2.42 or later");
        return g;
    }();
    return loaded;
}

}  // namespace

Result<std::string> graphviz_svg(std::string_view dot) {
    const Result<Gvc>& loaded = load_gvc();
    if (!loaded) return loaded.error();
    const Gvc& g = *loaded;
    static std::mutex one_at_a_time;  // Graphviz keeps global state
    const std::lock_guard<std::mutex> lock(one_at_a_time);
    GVC_s* context = g.gvContext();
    if (!context) return Error::system("Graphviz could not start (gvContext failed)");
    const std::string text(dot);
    Agraph_s* graph = g.agmemread(text.c_str());
    if (!graph) {
        g.gvFreeContext(context);
        return Error::system("Graphviz could not read the graph's DOT text");
    }
    std::string svg;
    Status status = ok_status();
    if (g.gvLayout(context, graph, "dot") != 0) {
        status = Error::system("Graphviz could not lay the graph out (is its dot plugin installed? run `dot -c` as root)");
    } else {
        char* data = nullptr;
        unsigned int length = 0;
        if (g.gvRenderData(context, graph, "svg", &data, &length) != 0 || data == nullptr) {
            status = Error::system("Graphviz could not render SVG (its core plugin is missing? run `dot -c` as root)");
        } else {
            svg.assign(data, length);
        }
        if (data) g.gvFreeRenderData(data);
        g.gvFreeLayout(context, graph);
    }
    g.agclose(graph);
    g.gvFreeContext(context);
    if (!status) return status.error();
    return svg;
}

}  // namespace small
