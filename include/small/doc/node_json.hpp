// A document node as a nlohmann JSON value (plain or ordered): what the
// schema validator sees for small documents, and the value model writers edit.
#pragma once

#include <string>

#include "small/doc/document.hpp"

namespace small {

template <typename Json>
Json node_to_json(NodeRef node) {
    switch (node.kind()) {
        case NodeKind::Null: return nullptr;
        case NodeKind::Bool: return node.as_bool();
        case NodeKind::Int: return node.as_int();
        case NodeKind::Float: return node.as_double();
        case NodeKind::String: return std::string(node.as_string());
        case NodeKind::Sequence: {
            Json out = Json::array();
            out.template get_ref<typename Json::array_t&>().reserve(node.size());
            for (std::size_t i = 0; i < node.size(); ++i) out.push_back(node_to_json<Json>(node.item(i)));
            return out;
        }
        case NodeKind::Mapping: {
            Json out = Json::object();
            for (std::size_t i = 0; i < node.size(); ++i) out[std::string(node.key(i))] = node_to_json<Json>(node.value(i));
            return out;
        }
    }
    return nullptr;
}

}  // namespace small
