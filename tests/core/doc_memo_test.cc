// DocMemo: a parse is reused only for an equal document from the same file, the least
// recently used entry is evicted, a parse that throws is not kept, and a result stays
// valid after its eviction.

#include "core/doc_memo.h"

#include <memory>
#include <stdexcept>

#include <gtest/gtest.h>

namespace ttsim {
namespace {

struct Counted {
  int value = 0;
};

TEST(DocMemo, ReusesAParseOnlyForAnEqualDocumentFromTheSameFile) {
  DocMemo<Counted, 2> memo;
  int parses = 0;
  auto parse = [&](const Json& doc, const std::string&) {
    ++parses;
    if (doc.contains("bad")) throw std::runtime_error("bad document");
    return Counted{doc.at("x").get<int>()};
  };
  const Json a = Json::parse(R"({"x": 1, "y": [1, 2]})"), a2 = Json::parse(R"({"y": [1, 2], "x": 1})");
  const Json b = Json::parse(R"({"x": 1, "y": [1, 3]})");
  const auto first = memo.get(a, "a.json", parse);
  EXPECT_EQ(memo.get(a2, "a.json", parse), first);  // equal document (member order is not content)
  EXPECT_EQ(parses, 1);
  EXPECT_NE(memo.get(a, "other.json", parse), first);  // another file: parsed again
  EXPECT_EQ(parses, 2);
  const auto third = memo.get(b, "a.json", parse);  // one value differs: parsed, evicts the oldest
  EXPECT_EQ(parses, 3);
  EXPECT_EQ(third->value, 1);
  EXPECT_NE(memo.get(a, "a.json", parse), first);  // evicted: parsed anew
  EXPECT_EQ(parses, 4);
  EXPECT_EQ(first->value, 1);  // still valid while held
  EXPECT_THROW(memo.get(Json::parse(R"({"bad": 1})"), "a.json", parse), std::runtime_error);
  EXPECT_THROW(memo.get(Json::parse(R"({"bad": 1})"), "a.json", parse), std::runtime_error);
  EXPECT_EQ(parses, 6);  // a failed parse is not kept
}

TEST(DocMemo, ASharedDocumentIsFoundByItsAddressAndAnEqualOneByItsContent) {
  DocMemo<Counted, 2> memo;
  int parses = 0;
  auto parse = [&](const Json& doc, const std::string&) {
    ++parses;
    return Counted{doc.at("x").get<int>()};
  };
  const auto a = std::make_shared<const Json>(Json::parse(R"({"x": 1})"));
  const auto a2 = std::make_shared<const Json>(Json::parse(R"({"x": 1})"));
  const auto b = std::make_shared<const Json>(Json::parse(R"({"x": 2})"));
  const auto first = memo.get(a, "a.json", parse);
  EXPECT_EQ(memo.get(a, "a.json", parse), first);
  EXPECT_EQ(memo.get(a2, "a.json", parse), first);  // another object, equal content
  EXPECT_EQ(memo.get(*a, "a.json", parse), first);  // the document itself
  EXPECT_EQ(parses, 1);
  EXPECT_EQ(memo.get(b, "a.json", parse)->value, 2);
  EXPECT_EQ(memo.get(a, "b.json", parse)->value, 1);  // another file: parsed again, evicts a.json's entry
  EXPECT_EQ(parses, 3);
  EXPECT_NE(memo.get(a, "a.json", parse), first);  // evicted: parsed anew, though the object is the same
  EXPECT_EQ(parses, 4);
  const std::shared_ptr<const Json> none;
  EXPECT_THROW(memo.get(none, "a.json", parse), std::exception);  // no document: the parse of null
}

}  // namespace
}  // namespace ttsim
