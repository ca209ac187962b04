// A valijson adapter over the document model, so schemas validate our
// nodes in place (no JSON copy of a 100k-entry log). Internal to libsmall.
#pragma once

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/internal/adapter.hpp>
#include <valijson/internal/basic_adapter.hpp>
#include <valijson/internal/frozen_value.hpp>
#include <valijson/internal/optional.hpp>

#include <string>
#include <utility>

#include "small/doc/document.hpp"

namespace small::schema_adapter {

class NodeAdapter;
class NodeArrayIterator;
class NodeMemberIterator;
using NodeMember = std::pair<std::string, NodeAdapter>;

nlohmann::json node_to_json(NodeRef node);

class NodeArray {
public:
    using const_iterator = NodeArrayIterator;
    using iterator = NodeArrayIterator;
    NodeArray() = default;
    explicit NodeArray(NodeRef node) : node_(node) {}
    NodeArrayIterator begin() const;
    NodeArrayIterator end() const;
    std::size_t size() const { return node_.size(); }

private:
    NodeRef node_;
};

class NodeObject {
public:
    using const_iterator = NodeMemberIterator;
    using iterator = NodeMemberIterator;
    NodeObject() = default;
    explicit NodeObject(NodeRef node) : node_(node) {}
    NodeMemberIterator begin() const;
    NodeMemberIterator end() const;
    NodeMemberIterator find(const std::string& name) const;
    std::size_t size() const { return node_.size(); }

private:
    NodeRef node_;
};

class NodeValue {
public:
    NodeValue() = default;
    explicit NodeValue(NodeRef node) : node_(node) {}

    valijson::adapters::FrozenValue* freeze() const {
        return new valijson::adapters::NlohmannJsonFrozenValue(node_to_json(node_));
    }
    opt::optional<NodeArray> getArrayOptional() const {
        if (node_.is_sequence()) return opt::make_optional(NodeArray(node_));
        return {};
    }
    bool getArraySize(std::size_t& out) const { return node_.is_sequence() ? (out = node_.size(), true) : false; }
    bool getBool(bool& out) const { return node_.is_bool() ? (out = node_.as_bool(), true) : false; }
    bool getDouble(double& out) const { return node_.is_float() ? (out = node_.as_double(), true) : false; }
    bool getInteger(int64_t& out) const { return node_.is_int() ? (out = node_.as_int(), true) : false; }
    opt::optional<NodeObject> getObjectOptional() const {
        if (node_.is_mapping()) return opt::make_optional(NodeObject(node_));
        return {};
    }
    bool getObjectSize(std::size_t& out) const { return node_.is_mapping() ? (out = node_.size(), true) : false; }
    bool getString(std::string& out) const {
        if (!node_.is_string()) return false;
        out.assign(node_.as_string());
        return true;
    }
    static bool hasStrictTypes() { return true; }
    bool isArray() const { return node_.is_sequence(); }
    bool isBool() const { return node_.is_bool(); }
    bool isDouble() const { return node_.is_float(); }
    bool isInteger() const { return node_.is_int(); }
    bool isNull() const { return node_.is_null(); }
    bool isNumber() const { return node_.is_number(); }
    bool isObject() const { return node_.is_mapping(); }
    bool isString() const { return node_.is_string(); }

private:
    NodeRef node_;
};

class NodeAdapter : public valijson::adapters::BasicAdapter<NodeAdapter, NodeArray, NodeMember, NodeObject, NodeValue> {
public:
    NodeAdapter() = default;
    explicit NodeAdapter(NodeRef node) : BasicAdapter(NodeValue(node)) {}
};

class NodeArrayIterator {
public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = NodeAdapter;
    using difference_type = NodeAdapter;
    using pointer = NodeAdapter*;
    using reference = NodeAdapter&;

    NodeArrayIterator(NodeRef node, std::size_t index) : node_(node), index_(index) {}
    NodeAdapter operator*() const { return NodeAdapter(node_.item(index_)); }
    valijson::adapters::DerefProxy<NodeAdapter> operator->() const { return valijson::adapters::DerefProxy<NodeAdapter>(**this); }
    bool operator==(const NodeArrayIterator& o) const { return index_ == o.index_; }
    bool operator!=(const NodeArrayIterator& o) const { return index_ != o.index_; }
    const NodeArrayIterator& operator++() { ++index_; return *this; }
    NodeArrayIterator operator++(int) { NodeArrayIterator pre = *this; ++index_; return pre; }
    const NodeArrayIterator& operator--() { --index_; return *this; }
    void advance(std::ptrdiff_t n) { index_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(index_) + n); }

private:
    NodeRef node_;
    std::size_t index_;
};

class NodeMemberIterator {
public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = NodeMember;
    using difference_type = NodeMember;
    using pointer = NodeMember*;
    using reference = NodeMember&;

    NodeMemberIterator(NodeRef node, std::size_t index) : node_(node), index_(index) {}
    NodeMember operator*() const { return NodeMember(std::string(node_.key(index_)), NodeAdapter(node_.value(index_))); }
    valijson::adapters::DerefProxy<NodeMember> operator->() const { return valijson::adapters::DerefProxy<NodeMember>(**this); }
    bool operator==(const NodeMemberIterator& o) const { return index_ == o.index_; }
    bool operator!=(const NodeMemberIterator& o) const { return index_ != o.index_; }
    const NodeMemberIterator& operator++() { ++index_; return *this; }
    NodeMemberIterator operator++(int) { NodeMemberIterator pre = *this; ++index_; return pre; }
    const NodeMemberIterator& operator--() { --index_; return *this; }

private:
    NodeRef node_;
    std::size_t index_;
};

inline NodeArrayIterator NodeArray::begin() const { return {node_, 0}; }
inline NodeArrayIterator NodeArray::end() const { return {node_, node_.size()}; }
inline NodeMemberIterator NodeObject::begin() const { return {node_, 0}; }
inline NodeMemberIterator NodeObject::end() const { return {node_, node_.size()}; }
inline NodeMemberIterator NodeObject::find(const std::string& name) const {
    for (std::size_t i = 0; i < node_.size(); ++i) {
        if (node_.key(i) == name) return {node_, i};
    }
    return end();
}

}  // namespace small::schema_adapter

namespace valijson::adapters {
template <>
struct AdapterTraits<small::schema_adapter::NodeAdapter> {
    using DocumentType = small::Document;
    static std::string adapterName() { return "SmallNodeAdapter"; }
};
}  // namespace valijson::adapters
