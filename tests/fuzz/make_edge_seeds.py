#!/usr/bin/env python3
"""Writes the edge-case seeds of tests/fuzz/corpus/ (run from the repository root; stdlib only).

Every limit of docs/limits.md a fuzz target can reach within a small input is seeded at the limit
and one past it (JSON depth 64/65, a 65,536/65,537-byte string, a 256/257-byte tensor name, a
64/65-byte token name, n_ctx tokens and one more), with the audit's refusals (a repeated key, bad
UTF-8, an aliased layer index) and the shipped documents headlab writes (analysis, seeds).
"""
import json
import os
import struct

ROOT = os.getcwd()
CORPUS = os.path.join(ROOT, 'tests/fuzz/corpus')


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(os.path.join(ROOT, path), 'rb') as f:
        return f.read()


def safetensors(header_text, data=b''):
    h = header_text.encode() if isinstance(header_text, str) else header_text
    return struct.pack('<Q', len(h)) + h + data


def split_header(blob):
    n = struct.unpack('<Q', blob[:8])[0]
    return blob[8:8 + n], blob[8 + n:]


# --- json_document: the JSON layer at its limits, and the documents headlab writes.
for depth in (64, 65):
    write('json_document', f'depth-{depth}.json', '[' * depth + ']' * depth)
    write('json_document', f'object-depth-{depth}.json', '{"k":' * depth + '1' + '}' * depth)
for n in (65536, 65537):
    write('json_document', f'string-{n}.json', '["' + 's' * n + '"]')
write('json_document', 'repeated-key.json', '{"a":1,"b":{"c":2,"c":3}}')
write('json_document', 'bad-utf8.json', b'["caf\xc3\xa9", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"]')
write('json_document', 'escapes.json', r'["\ud834\udd1e", "\u0000\b\f\n\r\t\/", "\udc00", "\ud800x"]')
write('json_document', 'numbers.json', '[-0, -0.0, 1e-400, 1e308, 18446744073709551615, 18446744073709551616, '
      '-9223372036854775808, -9223372036854775809, 0.1, 5e-324]')
write('json_document', 'bom.json', b'\xef\xbb\xbf{"a":[true,false,null]}')
write('json_document', 'max-digit-seeds-0-9.json', read('site/pages/data/max-digit-seeds-0-9.json'))
write('json_document', 'max-digit-seed0-analysis.json', read('site/pages/data/max-digit-seed0-analysis.json'))
results = os.path.join(ROOT, 'build/native/results-seed0.json')
if os.path.exists(results):  # `headlab feature-recovery --seed 0 --steps 20 --eval-size 16 --out ...`
    write('json_document', 'feature-recovery-results.json', read(results))

# --- safetensors (the fixed 2-layer LN config of safetensors_fuzz.cpp).
valid_header, valid_data = split_header(read('tests/fuzz/corpus/safetensors/valid-model.safetensors'))
doc = json.loads(valid_header)
first = sorted(k for k in doc if k != '__metadata__')[0]
text = valid_header.decode().rstrip()
# A repeated tensor name, the second pointing at other bytes; a repeated __metadata__.
entry = json.dumps(doc[first], separators=(',', ':'))
other = dict(doc[first], data_offsets=[0, doc[first]['data_offsets'][1] - doc[first]['data_offsets'][0]])
write('safetensors', 'repeated-name.safetensors',
      safetensors(text[:-1] + ',' + json.dumps(first) + ':' + json.dumps(other, separators=(',', ':')) + '}', valid_data))
write('safetensors', 'repeated-metadata.safetensors',
      safetensors('{"__metadata__":{"a":"1"},"__metadata__":{"a":"2"},' + text[1:], valid_data))
write('safetensors', 'description-300.safetensors',
      safetensors('{"__metadata__":{"description":"' + 'd' * 300 + '"},' + text[1:], valid_data))
write('safetensors', 'bad-utf8-name.safetensors',
      safetensors(b'{"\xc0\xaf":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', b'\0' * 4))
for n in (256, 257):
    write('safetensors', f'name-{n}.safetensors',
          safetensors('{"' + 'n' * n + '":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', b'\0' * 4))
aliased = {('blocks.00' + k[len('blocks.0'):] if k.startswith('blocks.0.') else k): v for k, v in doc.items()}
write('safetensors', 'aliased-layer.safetensors', safetensors(json.dumps(aliased, separators=(',', ':')), valid_data))
for rank in (4, 5):
    write('safetensors', f'rank-{rank}.safetensors',
          safetensors('{"a":{"dtype":"F32","shape":[' + ','.join(['1'] * rank) + '],"data_offsets":[0,4]}}', b'\0' * 4))

# --- transformer_config: the config's own limits.
base = '"n_layers":1,"n_heads":1,"d_model":2,"d_head":2,"n_ctx":3,"d_vocab":2'
for n in (64, 65):
    write('transformer_config', f'token-name-{n}.json', '{' + base + ',"token_names":["' + 't' * n + '","b"]}')
write('transformer_config', 'repeated-key.json', '{' + base + ',"n_layers":2}')
write('transformer_config', 'depth-3.json', '{' + base + ',"token_names":[["a"],"b"]}')
write('transformer_config', 'largest-sizes.json',
      '{"n_layers":4,"n_heads":64,"d_model":4096,"d_head":1024,"n_ctx":4096,"d_vocab":65536}')

# --- transformer_config, TransformerLens's to_dict() (the same reader hands it to
# formats/transformerlens_config.hpp): at the config's depth limit (attn_types nested once more) and
# with the largest sizes the core accepts. The tl-hooked_*, tl-bridge_native seeds are to_dict()
# documents of tests/data/transformerlens_config/, copied.
tl = json.loads(read('tests/data/transformerlens_config/hooked_ln.json'))
write('transformer_config', 'tl-depth-3.json', json.dumps(dict(tl, attn_types=[["global"], "global"])))
write('transformer_config', 'tl-largest-sizes.json',
      json.dumps(dict(tl, n_layers=4, n_heads=64, d_model=4096, d_head=1024, n_ctx=4096, d_vocab=65536)))

# --- prompt: the first byte picks the model (even: ids only; odd: with token names); n_ctx = 8.
for name, first_byte, text in [('ids', b'\0', '1 2 3'), ('names', b'\1', 'a,bb <s>\tcaf\u00e9\n7 -1'),
                               ('n-ctx', b'\0', ' '.join(['5'] * 8)), ('n-ctx-plus-1', b'\0', ' '.join(['5'] * 9)),
                               ('out-of-vocab', b'\0', '6 -1 999999999 1234567890'), ('unknown-name', b'\1', 'zz -')]:
    write('prompt', f'{name}.txt', first_byte + text.encode())

# --- prompt_pairs: the first byte picks the model as for prompt (n_ctx = 8, d_vocab = 6); the
# pair-count limit (1,024 / 1,025 pairs), prompts at n_ctx and one more, and each refusal once.
def pairs_doc(items):
    return json.dumps({'pairs': items}, separators=(',', ':'))


one = {'clean': [0, 1, 2], 'corrupted': [0, 3, 2], 'answer': 4, 'wrong': 5}
write('prompt_pairs', 'ids.json', b'\0' + pairs_doc([one, dict(one, clean=[5, 1, 2])]).encode())
write('prompt_pairs', 'names.json', b'\1' + pairs_doc([{'clean': 'a bb <s>', 'corrupted': 'a caf\u00e9 <s>',
                                                       'answer': '7', 'wrong': '-1'}]).encode())
for n in (1024, 1025):
    write('prompt_pairs', f'count-{n}.json', b'\0' + pairs_doc([one] * n).encode())
for n in (8, 9):
    write('prompt_pairs', f'n-ctx-{n}.json',
          b'\0' + pairs_doc([dict(one, clean=[1] * n, corrupted=[2] * n)]).encode())
write('prompt_pairs', 'lengths-differ.json', b'\0' + pairs_doc([dict(one, corrupted=[0, 3])]).encode())
write('prompt_pairs', 'batch-lengths-differ.json', b'\0' + pairs_doc([one, dict(one, clean=[1], corrupted=[2])]).encode())
write('prompt_pairs', 'answer-is-wrong.json', b'\0' + pairs_doc([dict(one, wrong=4)]).encode())
write('prompt_pairs', 'out-of-vocab.json', b'\0' + pairs_doc([dict(one, answer=6, corrupted=[0, -1, 99])]).encode())
write('prompt_pairs', 'unknown-field.json', b'\0' + pairs_doc([dict(one, clean_prompt=[1, 2, 3])]).encode())
write('prompt_pairs', 'empty.json', b'\0{"pairs":[]}')

# --- transformer_model: two little-endian length bytes, the config, the safetensors file.
def model(config_bytes, weights):
    return struct.pack('<H', len(config_bytes)) + config_bytes + weights


pairs = [('one_layer_plain', 'tests/data/transformer/one_layer_plain'),
         ('three_layer_ln_f32', 'tests/data/transformer/three_layer_ln_f32'),
         ('two_layer_ln_pos', 'tests/data/transformer/two_layer_ln_pos'),
         ('two_layer_lnpre_pos', 'tests/data/transformer/two_layer_lnpre_pos')]
for name, stem in pairs:
    write('transformer_model', f'{name}.bin', model(read(stem + '.json'), read(stem + '.safetensors')))
plain_config = read('tests/data/transformer/one_layer_plain.json')
plain = read('tests/data/transformer/one_layer_plain.safetensors')
h, d = split_header(plain)
plain_doc = json.loads(h)
aliased = {('blocks.00' + k[len('blocks.0'):] if k.startswith('blocks.0.') else k): v for k, v in plain_doc.items()}
write('transformer_model', 'aliased-layer.bin', model(plain_config, safetensors(json.dumps(aliased), d)))
two_layers = plain_config.replace(b'"n_layers": 1', b'"n_layers": 2')
write('transformer_model', 'missing-layer.bin', model(two_layers, plain))
write('transformer_model', 'config-only.bin', model(plain_config, b''))
# TransformerLens 4 bridge names under TransformerLens 4's config, one tensor renamed to the legacy
# naming (refused: mixed), and float16 / bfloat16 weights.
bridge_config = read('tests/data/transformerlens_config/bridge_native_ln.json')
bridge = read('tests/data/transformerlens_names/bridge.safetensors')
write('transformer_model', 'bridge-names.bin', model(bridge_config, bridge))
h, d = split_header(bridge)
mixed = {('blocks.0.attn.W_O' if k == 'blocks.0.attn.o.bias' else k): v for k, v in json.loads(h).items()}
write('transformer_model', 'bridge-mixed-names.bin', model(bridge_config, safetensors(json.dumps(mixed), d)))
write('transformer_model', 'two_layer_ln_pos-pt.bin',
      model(read('tests/data/transformer/two_layer_ln_pos.json'), read('tests/data/torch_checkpoint/two_layer_ln_pos.pt')))
for dtype in ('f16', 'bf16'):
    write('transformer_model', f'two_layer_ln_pos-{dtype}.bin',
          model(read('tests/data/transformer/two_layer_ln_pos.json'),
                read(f'tests/data/dtypes/two_layer_ln_pos.{dtype}.safetensors')))

# --- torch_checkpoint: torch.save's files, and archives built by hand (stored entries, as torch
# writes them) around data.pkl texts at the unpickler's limits.
import io
import zipfile

for name in ['state_dict', 'nested', 'long']:
    write('torch_checkpoint', f'{name}.pt', read(f'tests/data/torch_checkpoint/{name}.pt'))


def torch_archive(pickle_bytes, storages=((b'0', b'\0' * 16),), byteorder=b'little'):
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
        def add(name, data):
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
        add('archive/data.pkl', pickle_bytes)
        add('archive/byteorder', byteorder)
        for key, data in storages:
            add('archive/data/' + key.decode(), data)
        add('archive/version', b'3\n')
    return out.getvalue()


def pstr(s):
    return b'X' + struct.pack('<I', len(s)) + s


def tensor_pickle(entries):
    """OrderedDict name -> _rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())."""
    od = b'ccollections\nOrderedDict\n)R'
    p = b'\x80\x02' + od + b'('
    for name, cls, numel, offset, size, stride in entries:
        p += (pstr(name) + b'ctorch._utils\n_rebuild_tensor_v2\n((' + pstr(b'storage') + b'ctorch\n' + cls + b'\n' +
              pstr(b'0') + pstr(b'cpu') + b'J' + struct.pack('<i', numel) + b'tQJ' + struct.pack('<i', offset) +
              b'(' + b''.join(b'J' + struct.pack('<i', s) for s in size) + b't(' +
              b''.join(b'J' + struct.pack('<i', s) for s in stride) + b't\x89' + od + b'tR')
    return p + b'u.'


write('torch_checkpoint', 'strided.pt',
      torch_archive(tensor_pickle([(b'a', b'FloatStorage', 4, 0, [2, 2], [1, 2]), (b'b', b'FloatStorage', 4, 3, [3], [0])])))
write('torch_checkpoint', 'half-bool.pt',
      torch_archive(tensor_pickle([(b'h', b'HalfStorage', 8, 1, [7], [1]), (b'm', b'BoolStorage', 16, 0, [4, 4], [4, 1])])))
write('torch_checkpoint', 'big-endian.pt', torch_archive(tensor_pickle([(b'a', b'FloatStorage', 4, 0, [4], [1])]), byteorder=b'big'))
for k in (63, 64):
    write('torch_checkpoint', f'nested-lists-{k}.pt', torch_archive(b'\x80\x02}' + pstr(b'a') + b']' * k + b'a' * (k - 1) + b's.'))
for k in (64, 65):
    write('torch_checkpoint', f'marks-{k}.pt', torch_archive(b'\x80\x02' + b'(' * k + b't' * k + b'.'))
write('torch_checkpoint', 'os-system.pt', torch_archive(b'\x80\x02cos\nsystem\nq\x00' + pstr(b'ls') + b'q\x01\x85q\x02Rq\x03.'))
write('torch_checkpoint', 'self-list.pt', torch_archive(b'\x80\x02]q\x00h\x00a.'))


# --- tokenizer_json: the fixtures with texts (file, two zero bytes, text), and the limits ± 1.
tiny = read('tests/data/tokenizer/tiny_bpe.json')
word = read('tests/data/tokenizer/word_level.json')
write('tokenizer_json', 'tiny-bpe.txt', tiny + b'\0\0the cat<|endoftext|>  it\'s 2026! \xe6\x97\xa5\xe6\x9c\xac e\xcc\x81 \xf0\x9f\x91\x8b\t\n')
write('tokenizer_json', 'word-level.txt', word + b'\0\0the cat sat on the mat. na\xc3\xafve dog!')
write('tokenizer_json', 'not-utf8-text.txt', tiny + b'\0\0ab\xc3')
for k in (16, 17):
    write('tokenizer_json', f'depth-{k}.json', tiny.replace(b'"version": "1.0"', b'"version": ' + b'[' * (k - 1) + b']' * (k - 1), 1))
for n in (1024, 1025):
    write('tokenizer_json', f'token-{n}.json', word.replace(b'"the": 1', b'"' + b'x' * n + b'": 1', 1))
