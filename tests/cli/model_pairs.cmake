# headlab model analyze over a batch of prompt pairs (--pairs, --pairs-task): the document, and bad
# pairs files named with the pair and the field (headlab_model_case is defined in model.cmake).
set(_pairs_dir ${CMAKE_CURRENT_BINARY_DIR}/model-cli-pairs)
file(MAKE_DIRECTORY ${_pairs_dir})
file(WRITE ${_pairs_dir}/lengths.json
     "{\"pairs\":[{\"clean\":\"1 2 3\",\"corrupted\":\"1 4 3\",\"answer\":5,\"wrong\":6},{\"clean\":\"1 2 3\",\"corrupted\":\"1 2\",\"answer\":5,\"wrong\":6}]}")
file(WRITE ${_pairs_dir}/token.json
     "{\"pairs\":[{\"clean\":[1,2,3],\"corrupted\":[1,40,3],\"answer\":5,\"wrong\":6}]}")
file(WRITE ${_pairs_dir}/field.json "{\"pairs\":[{\"clean\":\"1 2\",\"corupted\":\"1 3\",\"answer\":5,\"wrong\":6}]}")
string(REPEAT "{\"clean\":\"1 2\",\"corrupted\":\"1 3\",\"answer\":5,\"wrong\":6}," 1024 _many)
file(WRITE ${_pairs_dir}/many.json "{\"pairs\":[${_many}{\"clean\":\"1 2\",\"corrupted\":\"1 3\",\"answer\":5,\"wrong\":6}]}")
set(_model --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors)
headlab_model_case(pairs_lengths "--pairs .*lengths.json: pair 1: the corrupted prompt has 2 tokens, the clean one 3.*exit=1"
                   analyze ${_model} --pairs ${_pairs_dir}/lengths.json)
headlab_model_case(pairs_token "--pairs .*token.json: pair 0 corrupted\\[1\\] must be a token id in \\[0, 17\\).*exit=1"
                   analyze ${_model} --pairs ${_pairs_dir}/token.json)
headlab_model_case(pairs_field "--pairs .*field.json: pair 0: unknown field \"corupted\".*exit=1"
                   analyze ${_model} --pairs ${_pairs_dir}/field.json)
headlab_model_case(pairs_too_many "--pairs .*many.json: a batch holds at most 1024 prompt pairs, got 1025.*exit=1"
                   analyze ${_model} --pairs ${_pairs_dir}/many.json)
headlab_model_case(pairs_with_prompt "--prompt applies to one prompt, not with --pairs or --pairs-task.*exit=2"
                   analyze ${_model} --pairs ${_pairs_dir}/token.json --prompt "1 2")
headlab_model_case(pairs_resamples "resamples must lie in \\[100, 10000\\], got 5.*exit=2"
                   analyze ${_model} --pairs-task induction --resamples 5)
headlab_model_case(pairs_task "--pairs-task must be induction or max-digit, got \"copy\".*exit=2"
                   analyze ${_model} --pairs-task copy)
headlab_model_case(resamples_without_pairs "--resamples applies only with --pairs or --pairs-task.*exit=2"
                   analyze ${_model} --prompt "1 2" --resamples 200)
# The fixture's pairs: a document with N = 66 and a head_position grid of [2][3][6].
headlab_model_case(pairs_ok "^\\{\"pairs\":66,\"prompt_length\":6,\"resamples\":100,\"permutations\":100,\"seed\":3,\"confidence\":0.95,\"components\":\\[\"q\",\"k\",\"v\",\"z\"\\],.*\"head_position\":\\{\"mean\":\\[\\[\\[[-0-9.e]+,[-0-9.e]+,[-0-9.e]+,[-0-9.e]+,[-0-9.e]+,[-0-9.e]+\\],.*exit=0"
                   analyze ${_model} --pairs ${CMAKE_CURRENT_SOURCE_DIR}/data/batch_patching/pairs.json --resamples 100 --permutations 100 --seed 3)
# The induction generator on a model with n_ctx 10, d_vocab 17: prompts of 2·5 − 1 = 9 tokens.
headlab_model_case(pairs_task_ok "^\\{\"pairs\":4,\"prompt_length\":9,.*exit=0"
                   analyze ${_model} --pairs-task induction --count 4 --pairs-seed 2 --resamples 100 --permutations 100)
# --path-patching: the fixture's 2 × 3 heads give 9 edges (every layer-0 head into every layer-1
# head), each cell [q, k, v]; a one-layer model has no path between heads.
headlab_model_case(path_patching_ok "^\\{\"pairs\":66,\"prompt_length\":6,\"resamples\":100,\"permutations\":100,\"seed\":3,\"confidence\":0.95,\"inputs\":\\[\"q\",\"k\",\"v\"\\],.*\"edges\":\\[\\[0,0,1,0\\],\\[0,0,1,1\\],\\[0,0,1,2\\],\\[0,1,1,0\\],.*\\[0,2,1,2\\]\\],\"mean\":\\[\\[[-0-9.e]+,[-0-9.e]+,[-0-9.e]+\\],.*exit=0"
                   analyze ${_model} --pairs ${CMAKE_CURRENT_SOURCE_DIR}/data/batch_patching/pairs.json --path-patching --resamples 100 --permutations 100 --seed 3)
headlab_model_case(path_patching_one_layer "path patching needs at least 2 layers .* the model has 1.*exit=1"
                   analyze --config ${_data}/one_layer_plain.json --weights ${_data}/one_layer_plain.safetensors --pairs-task induction --count 2 --path-patching)
headlab_model_case(path_patching_without_pairs "--path-patching applies only with --pairs or --pairs-task.*exit=2"
                   analyze ${_model} --prompt "1 2" --path-patching)
# --attribution-patching: the fixture's 6 heads as nodes [2][3] and its 9 edges [q, k, v], the
# agreement with the real patches; a one-layer model has nodes only (edge correlations null).
headlab_model_case(attribution_patching_ok "^\\{\"pairs\":66,\"prompt_length\":6,\"inputs\":\\[\"q\",\"k\",\"v\"\\],.*\"nodes\":\\{\"estimate\":\\[\\[[-0-9.e]+,[-0-9.e]+,[-0-9.e]+\\],\\[[-0-9.e]+,[-0-9.e]+,[-0-9.e]+\\]\\],.*\"edges\":\\{\"edges\":\\[\\[0,0,1,0\\],.*\\[0,2,1,2\\]\\],.*\"agreement\":\\{\"nodes\":\\{\"spearman\":0\\.88571428571428[0-9]*,\"largest\":\\[\\{\"layer\":0,\"head\":0,.*exit=0"
                   analyze ${_model} --pairs ${CMAKE_CURRENT_SOURCE_DIR}/data/batch_patching/pairs.json --attribution-patching)
headlab_model_case(attribution_patching_one_layer "\"edges\":\\{\"edges\":\\[\\],\"estimate\":\\[\\],.*\"edges\":\\{\"spearman\":null,\"spearman_by_input\":\\{\"q\":null,\"k\":null,\"v\":null\\},\"largest\":\\[\\]\\}\\}\\}.*exit=0"
                   analyze --config ${_data}/one_layer_plain.json --weights ${_data}/one_layer_plain.safetensors --pairs-task induction --count 2 --attribution-patching)
headlab_model_case(attribution_patching_with_path "give one of --path-patching, --attribution-patching, --faithfulness and --faithfulness-edges.*exit=2"
                   analyze ${_model} --pairs-task induction --path-patching --attribution-patching)
headlab_model_case(attribution_patching_resamples "--resamples sets intervals, which --attribution-patching does not draw.*exit=2"
                   analyze ${_model} --pairs-task induction --attribution-patching --resamples 200)
headlab_model_case(attribution_patching_without_pairs "--attribution-patching applies only with --pairs or --pairs-task.*exit=2"
                   analyze ${_model} --prompt "1 2" --attribution-patching)
# --faithfulness: the circuit in layer-then-head order, its recovery and one leave-one-out row per head;
# every head recovers exactly 1 (nothing is replaced); bad circuits name the head and the bound.
headlab_model_case(faithfulness_ok "^\\{\"pairs\":66,\"prompt_length\":6,\"resamples\":100,\"permutations\":100,\"seed\":3,\"confidence\":0.95,\"ablation\":\"corrupted\",\"circuit\":\\[\\[0,1\\],\\[1,0\\],\\[1,2\\]\\],.*\"recovery\":\\{\"mean\":[-0-9.e]+,\"lower\":[-0-9.e]+,\"upper\":[-0-9.e]+,\"p_value\":[-0-9.e]+,\"pairs\":\\[.*\"leave_one_out\":\\[\\{\"layer\":0,\"head\":1,\"mean\":.*\\{\"layer\":1,\"head\":2,.*exit=0"
                   analyze ${_model} --pairs ${CMAKE_CURRENT_SOURCE_DIR}/data/batch_patching/pairs.json --faithfulness "1.2 0.1,1.0" --resamples 100 --permutations 100 --seed 3)
headlab_model_case(faithfulness_every_head "\"ablation\":\"mean\",.*\"recovery\":\\{\"mean\":1(\\.0)?,\"lower\":1(\\.0)?,\"upper\":1(\\.0)?,.*\"pairs\":\\[1(\\.0)?,1(\\.0)?,1(\\.0)?,1(\\.0)?\\]\\},.*exit=0"
                   analyze ${_model} --pairs-task induction --count 4 --faithfulness "0.0 0.1 0.2 1.0 1.1 1.2" --ablation mean)
headlab_model_case(faithfulness_no_layer "circuit head 2.1: layer must lie in \\[0, 1\\] \\(the model has 2 layers\\).*exit=1"
                   analyze ${_model} --pairs-task induction --count 2 --faithfulness "0.1 2.1")
headlab_model_case(faithfulness_no_head "circuit head 1.3: head must lie in \\[0, 2\\] \\(the model has 3 heads per layer\\).*exit=1"
                   analyze ${_model} --pairs-task induction --count 2 --faithfulness "1.3")
headlab_model_case(faithfulness_twice "circuit head 0.1 is named twice.*exit=1"
                   analyze ${_model} --pairs-task induction --count 2 --faithfulness "0.1,0.1")
headlab_model_case(faithfulness_empty "circuit is empty: name at least one head.*exit=1"
                   analyze ${_model} --pairs-task induction --count 2 --faithfulness " ")
headlab_model_case(faithfulness_syntax "--faithfulness: \"1\" is not a layer.head pair such as 1.2.*exit=2"
                   analyze ${_model} --pairs-task induction --faithfulness "1")
headlab_model_case(faithfulness_ablation "--ablation with --faithfulness must be corrupted or mean, got \"zero\".*exit=2"
                   analyze ${_model} --pairs-task induction --faithfulness "0.1" --ablation zero)
headlab_model_case(faithfulness_with_path "give one of --path-patching, --attribution-patching, --faithfulness and --faithfulness-edges.*exit=2"
                   analyze ${_model} --pairs-task induction --path-patching --faithfulness "0.1")
# --faithfulness-edges: a circuit of edges (sender>receiver:input), its heads H(E) as "circuit", the
# edges sorted (path_edges order, then q, k, v) and one leave-one-out row per edge.
headlab_model_case(faithfulness_edges_ok "\"circuit\":\\[\\[0,1\\],\\[1,0\\],\\[1,2\\]\\],\"edges\":\\[\\[0,1,1,0,\"k\"\\],\\[0,1,1,2,\"q\"\\]\\],.*\"leave_one_out\":\\[\\{\"edge\":\\[0,1,1,0,\"k\"\\],\"mean\":.*\\{\"edge\":\\[0,1,1,2,\"q\"\\],.*exit=0"
                   analyze ${_model} --pairs ${CMAKE_CURRENT_SOURCE_DIR}/data/batch_patching/pairs.json --faithfulness-edges "0.1>1.2:q, 0.1>1.0:k" --resamples 100 --permutations 100)
headlab_model_case(faithfulness_edges_syntax "--faithfulness-edges: \"0.1-1.2:k\" is not an edge such as 0.1>1.2:k \\(sender>receiver:q, k or v\\).*exit=2"
                   analyze ${_model} --pairs-task induction --faithfulness-edges "0.1-1.2:k")
headlab_model_case(faithfulness_edges_input "--faithfulness-edges: \"0.1>1.2:z\" is not an edge.*exit=2"
                   analyze ${_model} --pairs-task induction --faithfulness-edges "0.1>1.2:z")
headlab_model_case(faithfulness_edges_no_path "circuit edge 1.1>1.0:v: the sender must be in an earlier layer than the receiver \\(no path\\).*exit=1"
                   analyze ${_model} --pairs-task induction --count 2 --faithfulness-edges "1.1>1.0:v")
headlab_model_case(faithfulness_edges_with_heads "give one of --path-patching, --attribution-patching, --faithfulness and --faithfulness-edges.*exit=2"
                   analyze ${_model} --pairs-task induction --faithfulness "0.1" --faithfulness-edges "0.1>1.0:k")
headlab_model_case(ablation_with_pairs "--ablation applies to one prompt or, with --pairs or --pairs-task, to --faithfulness.*exit=2"
                   analyze ${_model} --pairs-task induction --ablation mean)
headlab_model_case(faithfulness_without_pairs "--faithfulness applies only with --pairs or --pairs-task.*exit=2"
                   analyze ${_model} --prompt "1 2" --faithfulness "0.1")
