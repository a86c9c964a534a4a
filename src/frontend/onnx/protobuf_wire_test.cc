#include "frontend/onnx/protobuf_wire.h"

#include <gtest/gtest.h>

#include "frontend/onnx/onnx_model.h"
#include "frontend/onnx/onnx_test_writer.h"

namespace az::frontend::onnx {
namespace {

using testing::ProtoWriter;

uint64_t Decode(std::string_view bytes, bool* ok, size_t* consumed = nullptr) {
  size_t pos = 0;
  uint64_t value = 0;
  *ok = DecodeVarint(bytes, &pos, &value);
  if (consumed) *consumed = pos;
  return value;
}

TEST(OnnxWireTest, Varints) {
  bool ok = false;
  EXPECT_EQ(Decode("\x01", &ok), 1u);
  EXPECT_TRUE(ok);
  // 300 = 0b10_0101100: low group 0x2c with the continuation bit (0xac), then 0x02.
  EXPECT_EQ(Decode("\xac\x02", &ok), 300u);
  EXPECT_TRUE(ok);
  // 2^64 - 1 takes ten bytes: nine 0xff (63 bits) and a final 0x01 (bit 63).
  size_t consumed = 0;
  EXPECT_EQ(Decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", &ok, &consumed), UINT64_MAX);
  EXPECT_TRUE(ok);
  EXPECT_EQ(consumed, 10u);
  // -1 as an int64 field is written as that same ten-byte varint.
  std::string minus_one;
  ProtoWriter::AppendVarint(minus_one, static_cast<uint64_t>(int64_t{-1}));
  EXPECT_EQ(minus_one.size(), 10u);
  // A tenth byte above 1 overflows 64 bits; an eleventh byte is never valid.
  Decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", &ok);
  EXPECT_FALSE(ok);
  Decode("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01", &ok);
  EXPECT_FALSE(ok);
  // Truncated: the continuation bit promises a byte that is not there.
  Decode("\x80", &ok);
  EXPECT_FALSE(ok);
  Decode("", &ok);
  EXPECT_FALSE(ok);
}

TEST(OnnxWireTest, FieldsAndTypes) {
  ProtoWriter w;
  w.Varint(1, 150).Bytes(2, "abc").Float(3, 1.5f);
  WireMessage m("t.pb", w.str(), "Msg");
  WireField f;
  ASSERT_TRUE(*m.Next(&f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(*m.Int(f), 150);
  EXPECT_FALSE(m.Bytes(f).ok());  // a varint is not bytes
  ASSERT_TRUE(*m.Next(&f));
  EXPECT_EQ(*m.Bytes(f), "abc");
  // Tag (1 byte) + value (2 bytes: 150 = 0x96 0x01) + tag + length = offset 5 of "abc".
  EXPECT_EQ(f.value_offset, 5u);
  ASSERT_TRUE(*m.Next(&f));
  EXPECT_EQ(*m.Float(f), 1.5f);
  EXPECT_FALSE(*m.Next(&f));
}

TEST(OnnxWireTest, TruncationAndOverlongLengthsAreLocated) {
  // Field 2, length-delimited, declaring 100 bytes with 3 present.
  std::string bytes =
      "\x12\x64"
      "abc";
  WireMessage m("m.onnx", bytes, "GraphProto.node[17]", 1000);
  WireField f;
  auto next = m.Next(&f);
  ASSERT_FALSE(next.ok());
  // The length varint sits at byte 1 of the message, absolute 1001.
  EXPECT_EQ(next.status().message(),
            "m.onnx: byte 1001: GraphProto.node[17]: field 2 declares 100 bytes but only 3 remain");
  WireMessage truncated("m.onnx", std::string_view("\x08\x80", 2), "ModelProto");
  auto t = truncated.Next(&f);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "m.onnx: byte 1: ModelProto: truncated varint (field 1)");
  WireMessage fixed("m.onnx", std::string_view("\x0d\x01\x02", 3), "ModelProto");
  EXPECT_FALSE(fixed.Next(&f).ok());
  WireMessage group("m.onnx", std::string_view("\x0b", 1), "ModelProto");  // wire type 3 (start group)
  auto g = group.Next(&f);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("unsupported wire type 3"), std::string::npos);
}

TEST(OnnxWireTest, NestingDepthIsBounded) {
  // 70 messages, each the only field 1 of its parent.
  ProtoWriter inner;
  inner.Varint(2, 7);
  for (int i = 0; i < 70; ++i) {
    ProtoWriter outer;
    outer.Message(1, inner);
    inner = outer;
  }
  WireMessage m("deep.pb", inner.str(), "M");
  Status failure;
  for (int level = 0;; ++level) {
    WireField f;
    auto more = m.Next(&f);
    ASSERT_TRUE(more.ok());
    ASSERT_TRUE(*more);
    auto nested = m.Nested(f, "M");
    if (!nested.ok()) {
      failure = nested.status();
      // Levels 1..64 are allowed; the 65th nested reader is refused.
      EXPECT_EQ(level, kMaxWireDepth);
      break;
    }
    m = *nested;
  }
  EXPECT_NE(failure.message().find("nested deeper than 64"), std::string::npos);
}

TEST(OnnxWireTest, PackedAndUnpackedRepeated) {
  ProtoWriter w;
  w.PackedInts(1, {1, 300, -2}).Varint(1, 9);
  WireMessage m("r.pb", w.str(), "R");
  std::vector<int64_t> values;
  WireField f;
  while (*m.Next(&f)) ASSERT_TRUE(m.AppendVarints(f, &values, 100).ok());
  EXPECT_EQ(values, (std::vector<int64_t>{1, 300, -2, 9}));
  // The limit is on values kept, checked before appending.
  WireMessage again("r.pb", w.str(), "R");
  std::vector<int64_t> few;
  ASSERT_TRUE(*again.Next(&f));
  EXPECT_FALSE(again.AppendVarints(f, &few, 2).ok());
  // Packed floats must be a multiple of 4 bytes.
  ProtoWriter bad;
  bad.Bytes(7, "abcde");
  WireMessage b("r.pb", bad.str(), "A");
  ASSERT_TRUE(*b.Next(&f));
  std::vector<float> floats;
  EXPECT_FALSE(b.AppendFloats(f, &floats, 100).ok());
}

TEST(OnnxWireTest, ModelErrorsNameTheMessagePath) {
  // GraphProto.node[1].attribute[0] ends in a truncated varint.
  ProtoWriter attr;
  attr.Bytes(1, "axis");
  std::string attr_bytes = attr.str() + std::string("\x18\xff", 2);  // field 3 (i), varint cut short
  ProtoWriter good_node, bad_node;
  good_node.Bytes(4, "Relu");
  bad_node.Bytes(4, "Softmax").Bytes(5, attr_bytes);
  ProtoWriter graph;
  graph.Message(1, good_node).Message(1, bad_node);
  ProtoWriter model;
  model.Message(7, graph);
  auto parsed = ParseOnnxModel(model.str(), "bad.onnx");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("bad.onnx: byte "), std::string::npos) << parsed.status().message();
  EXPECT_NE(parsed.status().message().find("GraphProto.node[1].attribute[0]: truncated varint"), std::string::npos)
      << parsed.status().message();
  // Not an ONNX file at all.
  auto text = ParseOnnxModel("hello world", "x.onnx");
  EXPECT_FALSE(text.ok());
}

}  // namespace
}  // namespace az::frontend::onnx
