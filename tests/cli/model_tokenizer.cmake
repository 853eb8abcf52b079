# headlab model run / analyze --tokenizer: the prompt is text, the documents name its tokens, and a
# bad tokenizer file or a token beyond the model is refused by name (headlab_model_case is defined
# in model.cmake). The model has d_vocab 17: the WordLevel fixture's ids (0–7) fit, the byte-level
# fixture's (bytes and merges, up to 263) do not.
set(_tok_dir ${CMAKE_CURRENT_BINARY_DIR}/model-cli-tokenizer)
file(MAKE_DIRECTORY ${_tok_dir})
file(WRITE ${_tok_dir}/unigram.json "{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}")
set(_tok ${CMAKE_CURRENT_SOURCE_DIR}/data/tokenizer)
set(_tok_model --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors)
headlab_model_case(tokenizer_run "^\\{\"tokens\":\\[1,2,3,5,1,6,4\\],\"token_names\":\\[\"the\",\"cat\",\"sat\",\"on\",\"the\",\"mat\",\"\\.\"\\],\"logits\":.*exit=0"
                   run ${_tok_model} --tokenizer ${_tok}/word_level.json --prompt "the cat sat on the mat.")
headlab_model_case(tokenizer_unknown_word "\"tokens\":\\[1,0,0\\],\"token_names\":\\[\"the\",\"\\[UNK\\]\",\"\\[UNK\\]\"\\].*exit=0"
                   run ${_tok_model} --tokenizer ${_tok}/word_level.json --prompt "the dog!")
headlab_model_case(tokenizer_analyze "\"token_names\":\\[\"the\",\"cat\",\"sat\"\\].*\"patching\":.*exit=0"
                   analyze ${_tok_model} --tokenizer ${_tok}/word_level.json --prompt "the cat sat"
                   --corrupted "the mat sat" --answer 1 --wrong 2 --sequences 2)
headlab_model_case(tokenizer_beyond_vocab "--prompt: token 0 \"t\" has id 116; the model's d_vocab is 17.*exit=1"
                   run ${_tok_model} --tokenizer ${_tok}/tiny_bpe.json --prompt "the cat")
headlab_model_case(tokenizer_no_tokens "--prompt: the text gives no tokens.*exit=1"
                   run ${_tok_model} --tokenizer ${_tok}/word_level.json --prompt "   ")
headlab_model_case(tokenizer_bad_file "--tokenizer .*unigram.json: tokenizer: model type \"Unigram\" is not implemented \\(headlab reads BPE or WordLevel\\).*exit=1"
                   run ${_tok_model} --tokenizer ${_tok_dir}/unigram.json --prompt "the")
headlab_model_case(tokenizer_missing_file "--tokenizer: cannot open \"/nonexistent/t.json\".*exit=1"
                   run ${_tok_model} --tokenizer /nonexistent/t.json --prompt "the")
headlab_model_case(tokenizer_with_pairs "--tokenizer applies to one prompt, not with --pairs or --pairs-task.*exit=2"
                   analyze ${_tok_model} --tokenizer ${_tok}/word_level.json --pairs-task induction)
