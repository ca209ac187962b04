// The document model: DocumentBuilder, NodeRef accessors and bounds,
// kind names, numeric conversions, JSON pointers (RFC 6901).
#include "small/doc/document.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include <sys/mman.h>

namespace small {
namespace {

Mark at(std::uint32_t line, std::uint32_t column) { return Mark{line, column}; }

// {name: "widget", list: [1, 2.5, true, null], nested: {k: "v", "a/b": 1, "m~n": 2, "": 3, "~1": 4}}
Document sample() {
    DocumentBuilder b;
    b.begin_mapping(at(1, 1));
    b.add_string("name", at(1, 1));
    b.add_string("widget", at(1, 7));
    b.add_string("list", at(2, 1));
    b.begin_sequence(at(2, 7));
    b.add_int(1, at(2, 8), "1");
    b.add_float(2.5, at(2, 11), "2.5");
    b.add_bool(true, at(2, 16), "true");
    b.add_null(at(2, 22), "null");
    b.end();
    b.add_string("nested", at(3, 1));
    b.begin_mapping(at(4, 3));
    b.add_string("k", at(4, 3));
    b.add_string("v", at(4, 6));
    b.add_string("a/b", at(5, 3));
    b.add_int(1, at(5, 10), "1");
    b.add_string("m~n", at(6, 3));
    b.add_int(2, at(6, 10), "2");
    b.add_string("", at(7, 3));
    b.add_int(3, at(7, 7), "3");
    b.add_string("~1", at(8, 3));
    b.add_int(4, at(8, 9), "4");
    b.end();
    b.end();
    return b.finish();
}

Document single_float(double v) {
    DocumentBuilder b;
    b.add_float(v, at(1, 1), "<float>");
    return b.finish();
}

// ------------------------------------------------------------ building, navigation

TEST(DocumentBuilder, BuildsANestedTree) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    ASSERT_TRUE(root.valid());
    EXPECT_TRUE(root.is_mapping());
    EXPECT_EQ(root.size(), 3u);
    EXPECT_EQ(root.key(0), "name");
    EXPECT_EQ(root.key(1), "list");
    EXPECT_EQ(root.key(2), "nested");
    EXPECT_EQ(root.value(0).as_string(), "widget");
    EXPECT_EQ(root.find("name").as_string(), "widget");

    const NodeRef list = root.find("list");
    ASSERT_TRUE(list.is_sequence());
    ASSERT_EQ(list.size(), 4u);
    EXPECT_TRUE(list.item(0).is_int());
    EXPECT_EQ(list.item(0).as_int(), 1);
    EXPECT_TRUE(list.item(1).is_float());
    EXPECT_DOUBLE_EQ(list.item(1).as_double(), 2.5);
    EXPECT_TRUE(list.item(1).is_number());
    EXPECT_TRUE(list.item(0).is_number());
    EXPECT_TRUE(list.item(2).is_bool());
    EXPECT_TRUE(list.item(2).as_bool());
    EXPECT_TRUE(list.item(3).is_null());
    EXPECT_TRUE(list.item(3).valid());

    const NodeRef nested = root.find("nested");
    ASSERT_TRUE(nested.is_mapping());
    EXPECT_EQ(nested.size(), 5u);
    EXPECT_EQ(nested.find("k").as_string(), "v");
    EXPECT_EQ(nested.find("").as_int(), 3);
    EXPECT_EQ(nested.find("a/b").as_int(), 1);
}

TEST(DocumentBuilder, MarksAreKept) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    EXPECT_EQ(root.mark().line, 1u);
    EXPECT_EQ(root.mark().column, 1u);
    EXPECT_EQ(root.key_node(1).mark().line, 2u);
    EXPECT_EQ(root.key_node(1).mark().column, 1u);
    EXPECT_EQ(root.find("list").mark().column, 7u);
    EXPECT_EQ(root.find("list").item(3).mark().line, 2u);
    EXPECT_EQ(root.find("list").item(3).mark().column, 22u);
    EXPECT_EQ(root.find("nested").mark().line, 4u);
    EXPECT_EQ(root.find("nested").key_node(4).mark().line, 8u);
    EXPECT_EQ(root.find("nested").value(4).mark().column, 9u);
}

TEST(DocumentBuilder, ScalarTextIsKept) {
    const Document doc = sample();
    const NodeRef list = doc.root().find("list");
    EXPECT_EQ(list.item(0).scalar_text(), "1");
    EXPECT_EQ(list.item(1).scalar_text(), "2.5");
    EXPECT_EQ(list.item(2).scalar_text(), "true");
    EXPECT_EQ(list.item(3).scalar_text(), "null");
    EXPECT_EQ(doc.root().find("name").scalar_text(), "widget");
    // Containers have no scalar text.
    EXPECT_EQ(list.scalar_text(), "");
    EXPECT_EQ(doc.root().scalar_text(), "");
    // as_string is empty for non-strings even though scalar_text is not.
    EXPECT_EQ(list.item(0).as_string(), "");
    EXPECT_EQ(list.item(2).as_string(), "");
}

// Text offsets are 32-bit: a scalar of 2 GiB or more is flagged, not thrown
// and not stored. The text is an inaccessible mapping: never read, so no RAM.
TEST(DocumentBuilder, OversizedScalarIsFlaggedNotThrown) {
    const std::size_t size = std::size_t{1} << 31;
    void* region = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(region, MAP_FAILED);
    DocumentBuilder b;
    b.begin_sequence(at(1, 1));
    b.add_string("small", at(1, 2));
    EXPECT_FALSE(b.overflowed());
    b.add_string(std::string_view(static_cast<const char*>(region), size), at(1, 9));
    EXPECT_TRUE(b.overflowed());
    b.end();
    const Document doc = b.finish();
    EXPECT_EQ(doc.root().item(1).as_string(), "");
    ::munmap(region, size);
}

TEST(DocumentBuilder, EmptyBuilderGivesAnEmptyDocument) {
    DocumentBuilder b;
    const Document doc = b.finish();
    EXPECT_TRUE(doc.empty());
    EXPECT_FALSE(doc.root().valid());
    EXPECT_EQ(doc.node_count(), 0u);
    EXPECT_EQ(doc.source(), "");
}

TEST(DocumentBuilder, ScalarRoot) {
    DocumentBuilder b;
    b.add_string("just text", at(1, 1));
    const Document doc = b.finish();
    EXPECT_FALSE(doc.empty());
    EXPECT_TRUE(doc.root().is_string());
    EXPECT_EQ(doc.root().as_string(), "just text");
    EXPECT_EQ(doc.root().size(), 0u);
}

TEST(DocumentBuilder, EmptyContainersAndEmptyStrings) {
    DocumentBuilder b;
    b.begin_sequence(at(1, 1));
    b.begin_mapping(at(1, 2));
    b.end();
    b.begin_sequence(at(1, 5));
    b.end();
    b.add_string("", at(1, 9));
    b.end();
    const Document doc = b.finish();
    const NodeRef root = doc.root();
    ASSERT_EQ(root.size(), 3u);
    EXPECT_TRUE(root.item(0).is_mapping());
    EXPECT_EQ(root.item(0).size(), 0u);
    EXPECT_FALSE(root.item(0).find("").valid());
    EXPECT_TRUE(root.item(1).is_sequence());
    EXPECT_EQ(root.item(1).size(), 0u);
    EXPECT_FALSE(root.item(1).item(0).valid());
    EXPECT_TRUE(root.item(2).is_string());
    EXPECT_EQ(root.item(2).as_string(), "");
}

TEST(DocumentBuilder, FinishClosesOpenContainers) {
    DocumentBuilder b;
    b.begin_mapping(at(1, 1));
    b.add_string("outer", at(1, 1));
    b.begin_sequence(at(2, 3));
    b.add_int(7, at(2, 5), "7");
    EXPECT_TRUE(b.has_open_container());
    const Document doc = b.finish();
    ASSERT_TRUE(doc.root().is_mapping());
    ASSERT_EQ(doc.root().size(), 1u);
    EXPECT_EQ(doc.root().find("outer").item(0).as_int(), 7);
    EXPECT_FALSE(b.has_open_container());
}

TEST(DocumentBuilder, IsReusableAfterFinish) {
    DocumentBuilder b;
    b.add_string("first", at(1, 1));
    const Document one = b.finish();
    b.add_int(2, at(1, 1), "2");
    const Document two = b.finish();
    EXPECT_EQ(one.root().as_string(), "first");
    EXPECT_EQ(one.node_count(), 1u);
    EXPECT_EQ(two.root().as_int(), 2);
    EXPECT_EQ(two.node_count(), 1u);
}

TEST(DocumentBuilder, OpenChildAccess) {
    DocumentBuilder b;
    b.begin_mapping(at(1, 1));
    EXPECT_EQ(b.open_child_count(), 0u);
    const auto k = b.add_string("key", at(1, 1));
    const auto v = b.add_int(5, at(1, 6), "5");
    EXPECT_EQ(b.open_child_count(), 2u);
    EXPECT_EQ(b.open_child(0), k);
    EXPECT_EQ(b.open_child(1), v);
    EXPECT_EQ(b.node_text(k), "key");
    EXPECT_EQ(b.node_kind(v), NodeKind::Int);
    EXPECT_EQ(b.node_mark(v).column, 6u);
    b.begin_sequence(at(2, 1));
    EXPECT_EQ(b.open_child_count(), 0u);  // counts the innermost container only
    b.end();
    EXPECT_EQ(b.open_child_count(), 3u);
}

TEST(DocumentBuilder, AddExistingSharesANode) {
    DocumentBuilder b;
    b.begin_mapping(at(1, 1));
    b.add_string("a", at(1, 1));
    b.begin_sequence(at(1, 4));
    b.add_int(1, at(1, 5), "1");
    b.add_int(2, at(1, 8), "2");
    const auto seq = b.end();
    b.add_string("b", at(2, 1));
    b.add_existing(seq);
    b.end();
    const Document doc = b.finish();
    const NodeRef a = doc.root().find("a");
    const NodeRef bref = doc.root().find("b");
    ASSERT_TRUE(bref.is_sequence());
    EXPECT_EQ(bref.index(), a.index());
    EXPECT_EQ(bref.size(), 2u);
    EXPECT_EQ(bref.item(1).as_int(), 2);
    EXPECT_EQ(bref.mark().column, 4u);  // the alias reports the anchor's position
}

TEST(DocumentBuilder, TextFromTheSourceAndCopiedText) {
    DocumentBuilder b;
    b.set_source("key: value\n", 8);
    const std::string& src = b.source();
    b.begin_mapping(at(1, 1));
    b.add_string(std::string_view(src).substr(0, 3), at(1, 1));
    const std::string outside = "copied";
    b.add_string(outside, at(1, 6));
    b.end();
    Document doc = b.finish();
    EXPECT_EQ(doc.source(), "key: value\n");
    EXPECT_EQ(doc.root().key(0), "key");
    EXPECT_EQ(doc.root().find("key").as_string(), "copied");
    // Moving the document keeps every text valid (short sources use SSO).
    Document moved = std::move(doc);
    EXPECT_EQ(moved.root().key(0), "key");
    EXPECT_EQ(moved.root().value(0).as_string(), "copied");
}

TEST(DocumentBuilder, TopLevelExtraNodesDoNotReplaceTheRoot) {
    DocumentBuilder b;
    b.add_string("first", at(1, 1));
    b.add_string("second", at(2, 1));
    const Document doc = b.finish();
    EXPECT_EQ(doc.root().as_string(), "first");
}

// ------------------------------------------------------------ bounds, kind checks

TEST(DocumentNodeRef, OutOfRangeGivesInvalidRefs) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    const NodeRef list = root.find("list");
    EXPECT_FALSE(list.item(4).valid());
    EXPECT_FALSE(list.item(static_cast<std::size_t>(-1)).valid());
    EXPECT_FALSE(root.value(3).valid());
    EXPECT_FALSE(root.key_node(3).valid());
    EXPECT_EQ(root.key(3), "");
    EXPECT_FALSE(root.find("missing").valid());
    EXPECT_FALSE(root.find("Name").valid());  // keys are case-sensitive
}

TEST(DocumentNodeRef, WrongKindAccessorsGiveInvalidRefs) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    const NodeRef list = root.find("list");
    const NodeRef name = root.find("name");
    EXPECT_FALSE(root.item(0).valid());       // item() of a mapping
    EXPECT_FALSE(list.find("0").valid());      // find() in a sequence
    EXPECT_FALSE(list.value(0).valid());
    EXPECT_FALSE(list.key_node(0).valid());
    EXPECT_EQ(list.key(0), "");
    EXPECT_FALSE(name.find("x").valid());      // find() in a scalar
    EXPECT_FALSE(name.item(0).valid());
    EXPECT_EQ(name.size(), 0u);
}

TEST(DocumentNodeRef, InvalidRefIsSafe) {
    const NodeRef none;
    EXPECT_FALSE(none.valid());
    EXPECT_FALSE(static_cast<bool>(none));
    EXPECT_EQ(none.kind(), NodeKind::Null);
    EXPECT_FALSE(none.is_null());
    EXPECT_FALSE(none.is_bool());
    EXPECT_FALSE(none.is_int());
    EXPECT_FALSE(none.is_float());
    EXPECT_FALSE(none.is_number());
    EXPECT_FALSE(none.is_string());
    EXPECT_FALSE(none.is_sequence());
    EXPECT_FALSE(none.is_mapping());
    EXPECT_EQ(none.mark().line, 0u);
    EXPECT_EQ(none.mark().column, 0u);
    EXPECT_FALSE(none.as_bool());
    EXPECT_EQ(none.as_int(), 0);
    EXPECT_EQ(none.as_double(), 0.0);
    EXPECT_EQ(none.as_string(), "");
    EXPECT_EQ(none.scalar_text(), "");
    EXPECT_EQ(none.size(), 0u);
    EXPECT_FALSE(none.item(0).valid());
    EXPECT_FALSE(none.value(0).valid());
    EXPECT_FALSE(none.key_node(0).valid());
    EXPECT_EQ(none.key(0), "");
    EXPECT_FALSE(none.find("x").valid());
    EXPECT_EQ(none.document(), nullptr);
    // Chained lookups through absent nodes stay absent.
    const Document doc = sample();
    EXPECT_FALSE(doc.root().find("missing").find("deeper").item(3).valid());
    EXPECT_EQ(doc.root().find("missing").find("deeper").as_string(), "");
}

TEST(DocumentNodeRef, KindName) {
    EXPECT_STREQ(kind_name(NodeKind::Null), "null");
    EXPECT_STREQ(kind_name(NodeKind::Bool), "boolean");
    EXPECT_STREQ(kind_name(NodeKind::Int), "integer");
    EXPECT_STREQ(kind_name(NodeKind::Float), "number");
    EXPECT_STREQ(kind_name(NodeKind::String), "string");
    EXPECT_STREQ(kind_name(NodeKind::Sequence), "list");
    EXPECT_STREQ(kind_name(NodeKind::Mapping), "mapping");
}

// ------------------------------------------------------------ numeric conversions

TEST(DocumentNumbers, AsIntTruncatesFiniteFloats) {
    const std::pair<double, std::int64_t> cases[] = {
        {2.9, 2}, {-2.9, -2}, {0.0, 0}, {-0.0, 0}, {1e15, 1000000000000000}, {-1e18, -1000000000000000000},
        {9.1e18, 9100000000000000000},
    };
    for (const auto& [value, expected] : cases) {
        const Document doc = single_float(value);
        EXPECT_EQ(doc.root().as_int(), expected) << value;
    }
}

TEST(DocumentNumbers, AsIntOnNonFiniteOrHugeFloatsIsZero) {
    for (double value : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(), 1e300, -1e300, 9.3e18, -9.3e18, 1.8446744073709552e19,
                         std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()}) {
        const Document doc = single_float(value);
        EXPECT_EQ(doc.root().as_int(), 0) << value;
    }
}

TEST(DocumentNumbers, ConversionsBetweenKinds) {
    DocumentBuilder b;
    b.begin_sequence(at(1, 1));
    b.add_int(std::numeric_limits<std::int64_t>::min(), at(1, 2), "-9223372036854775808");
    b.add_int(3, at(1, 3), "3");
    b.add_string("12", at(1, 4));
    b.add_bool(true, at(1, 5), "true");
    b.add_null(at(1, 6));
    b.end();
    const Document doc = b.finish();
    const NodeRef root = doc.root();
    EXPECT_EQ(root.item(0).as_int(), std::numeric_limits<std::int64_t>::min());
    EXPECT_DOUBLE_EQ(root.item(1).as_double(), 3.0);
    EXPECT_EQ(root.item(2).as_int(), 0);       // strings are not numbers
    EXPECT_EQ(root.item(2).as_double(), 0.0);
    EXPECT_EQ(root.item(3).as_int(), 0);       // nor are booleans
    EXPECT_FALSE(root.item(1).as_bool());      // nor are numbers booleans
    EXPECT_FALSE(root.item(2).as_bool());
    EXPECT_EQ(root.item(4).as_int(), 0);
    EXPECT_TRUE(root.item(4).is_null());
    EXPECT_EQ(root.item(4).scalar_text(), "");
}

// ------------------------------------------------------------ JSON pointers

TEST(DocumentPointer, EscapeSegment) {
    EXPECT_EQ(json_pointer_escape("plain"), "plain");
    EXPECT_EQ(json_pointer_escape(""), "");
    EXPECT_EQ(json_pointer_escape("a/b"), "a~1b");
    EXPECT_EQ(json_pointer_escape("m~n"), "m~0n");
    EXPECT_EQ(json_pointer_escape("~/"), "~0~1");
    EXPECT_EQ(json_pointer_escape("~1"), "~01");
    EXPECT_EQ(json_pointer_escape("//"), "~1~1");
    EXPECT_EQ(json_pointer_escape("\xC3\xA9"), "\xC3\xA9");
}

TEST(DocumentPointer, ResolvesMembersAndItems) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    EXPECT_EQ(resolve_pointer(root, "").index(), root.index());
    EXPECT_TRUE(resolve_pointer(root, "").is_mapping());
    EXPECT_EQ(resolve_pointer(root, "/name").as_string(), "widget");
    EXPECT_EQ(resolve_pointer(root, "/list/0").as_int(), 1);
    EXPECT_DOUBLE_EQ(resolve_pointer(root, "/list/1").as_double(), 2.5);
    EXPECT_TRUE(resolve_pointer(root, "/list/3").is_null());
    EXPECT_TRUE(resolve_pointer(root, "/list/3").valid());
    EXPECT_EQ(resolve_pointer(root, "/nested/k").as_string(), "v");
    EXPECT_TRUE(resolve_pointer(root, "/list").is_sequence());
}

TEST(DocumentPointer, Rfc6901Escapes) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    EXPECT_EQ(resolve_pointer(root, "/nested/a~1b").as_int(), 1);
    EXPECT_EQ(resolve_pointer(root, "/nested/m~0n").as_int(), 2);
    // "~01" is "~1" (unescape ~0 first would wrongly give "/"... the order matters).
    EXPECT_EQ(resolve_pointer(root, "/nested/~01").as_int(), 4);
    // The empty key.
    EXPECT_EQ(resolve_pointer(root, "/nested/").as_int(), 3);
    // Round trip through json_pointer_escape.
    for (const char* key : {"k", "a/b", "m~n", "", "~1"}) {
        const std::string pointer = "/nested/" + json_pointer_escape(key);
        EXPECT_TRUE(resolve_pointer(root, pointer).valid()) << pointer;
        EXPECT_EQ(resolve_pointer(root, pointer).index(), root.find("nested").find(key).index()) << pointer;
    }
}

TEST(DocumentPointer, InvalidPathsGiveInvalidRefs) {
    const Document doc = sample();
    const NodeRef root = doc.root();
    for (const char* pointer : {"name", "/missing", "/list/4", "/list/-", "/list/+1", "/list/-1", "/list/1a",
                                "/list/ 1", "/list/", "/list/0x1", "/name/x", "/name/0", "/list/0/x", "/nested/a/b",
                                "/nested/k/", "/list/99999999999999999999", "//", "/Name"}) {
        EXPECT_FALSE(resolve_pointer(root, pointer).valid()) << pointer;
    }
    EXPECT_FALSE(resolve_pointer(NodeRef(), "/x").valid());
}

TEST(DocumentPointer, ArrayIndicesWithLeadingZerosAreInvalid) {
    // RFC 6901 §4: array-index = %x30 / ( %x31-39 *DIGIT ); "01" is not an index.
    const Document doc = sample();
    const NodeRef root = doc.root();
    EXPECT_EQ(resolve_pointer(root, "/list/0").as_int(), 1);
    EXPECT_TRUE(resolve_pointer(root, "/list/2").is_bool());
    EXPECT_FALSE(resolve_pointer(root, "/list/01").valid());
    EXPECT_FALSE(resolve_pointer(root, "/list/00").valid());
    EXPECT_FALSE(resolve_pointer(root, "/list/002").valid());
}

}  // namespace
}  // namespace small
