# headlab model through the executable: a round trip through the files it writes, and every bad
# input a clear message with a non-zero exit (never a crash or a partial file).
function(headlab_model_case name expect)
  add_test(NAME cli.model.${name}
           COMMAND sh -c "exe=\"$1\"; shift; \"$exe\" model \"$@\" 2>&1; echo \"exit=$?\"" sh $<TARGET_FILE:headlab> ${ARGN})
  set_tests_properties(cli.model.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()
set(_data ${CMAKE_CURRENT_SOURCE_DIR}/data/transformer)
set(_md ${CMAKE_CURRENT_BINARY_DIR}/model-cli-max-digit)
headlab_model_case(usage "usage: headlab model inspect.*exit=2")
headlab_model_case(no_config "--config is required.*exit=2" inspect --weights x.safetensors)
headlab_model_case(missing_file "--config: cannot open \"/nonexistent/m.json\".*exit=1" inspect --config /nonexistent/m.json --weights x)
headlab_model_case(not_safetensors "--weights .*: safetensors: .*exit=1"
                   inspect --config ${_data}/two_layer_ln_pos.json --weights ${CMAKE_CURRENT_SOURCE_DIR}/data/attention_identity.json)
headlab_model_case(config_disagrees "embed.W_E has shape \\[11, 8\\]; the config implies.*exit=1"
                   inspect --config ${_data}/two_layer_ln_pos.json --weights ${_data}/one_layer_plain.safetensors)
headlab_model_case(inspect_ok "\"parameters\":[0-9]+.*\"checks\":\"ok\".*exit=0"
                   inspect --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors)
# A PyTorch checkpoint (torch.save of the same state_dict, W_U a transposed view) is read as the
# safetensors file is: the same run, byte for byte; a refused one names the file and the tensor.
set(_pt ${CMAKE_CURRENT_SOURCE_DIR}/data/torch_checkpoint)
headlab_model_case(inspect_torch_checkpoint "\"parameters\":[0-9]+.*\"checks\":\"ok\".*exit=0"
                   inspect --config ${_data}/two_layer_ln_pos.json --weights ${_pt}/two_layer_ln_pos.pt)
add_test(NAME cli.model.torch_checkpoint_same_run
         COMMAND sh -c "a=$(\"$1\" model run --config \"$2.json\" --weights \"$2.safetensors\" --prompt '1 2 3 4') &&
                        b=$(\"$1\" model run --config \"$2.json\" --weights \"$3\" --prompt '1 2 3 4') &&
                        [ -n \"$a\" ] && [ \"$a\" = \"$b\" ] && echo same"
                 sh $<TARGET_FILE:headlab> ${_data}/two_layer_ln_pos ${_pt}/two_layer_ln_pos.pt)
set_tests_properties(cli.model.torch_checkpoint_same_run PROPERTIES PASS_REGULAR_EXPRESSION "^same\n$")
headlab_model_case(torch_checkpoint_refused "--weights .*long.pt: torch checkpoint: tensor steps is stored as torch.LongStorage; .*exit=1"
                   inspect --config ${_data}/two_layer_ln_pos.json --weights ${_pt}/long.pt)
# TransformerLens's own config (HookedTransformerConfig.to_dict() of the induction model's shape and
# shortformer positions) reads the shipped induction model as its headlab config does: the same run,
# byte for byte; an MLP model's is refused naming the field.
set(_tl ${CMAKE_CURRENT_SOURCE_DIR}/data/transformerlens_config)
add_test(NAME cli.model.transformerlens_config_same_run
         COMMAND sh -c "a=$(\"$1\" model run --config \"$2.json\" --weights \"$2.safetensors\" --prompt '1 2 3 4') &&
                        b=$(\"$1\" model run --config \"$3\" --weights \"$2.safetensors\" --prompt '1 2 3 4') &&
                        [ -n \"$a\" ] && [ \"$a\" = \"$b\" ] && echo same"
                 sh $<TARGET_FILE:headlab> ${CMAKE_SOURCE_DIR}/site/pages/data/induction-seed0 ${_tl}/hooked_ln_shortformer.json)
set_tests_properties(cli.model.transformerlens_config_same_run PROPERTIES PASS_REGULAR_EXPRESSION "^same\n$")
headlab_model_case(transformerlens_config_mlp "--config .*hooked_mlp.json: config: attn_only = false asks for MLP blocks of d_mlp = 32.*exit=1"
                   inspect --config ${_tl}/hooked_mlp.json --weights ${_data}/two_layer_ln_pos.safetensors)
headlab_model_case(prompt_out_of_vocab "--prompt: token 17 at position 1 is outside the vocabulary \\[0, 17\\).*exit=1"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 17")
headlab_model_case(prompt_too_long "--prompt: the prompt has 11 tokens; the model's context n_ctx = 10.*exit=1"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2 3 4 5 6 7 8 9 10 11")
headlab_model_case(prompt_word "--prompt: prompt token \"cat\" at position 2.*exit=1"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1,2,cat")
headlab_model_case(run_ok "\"tokens\":\\[1,2,3\\],\"logits\":\\[\\[.*\"patterns\":\\[\\[\\[\\[1.0,0.0,0.0\\].*exit=0"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2 3")
# The shipped induction model and its recorded training run (site/pages/data/induction-seed0*, the
# article's Figure 1 draws the history on load) regenerate byte for byte from the default recipe.
add_test(NAME cli.model.train_regenerates_shipped_induction_acceptance
         COMMAND sh -c "set -e; d=\"$3\"; rm -rf \"$d\"; mkdir -p \"$d\";
                        \"$1\" model train --task induction --seed 0 --out \"$d/m.safetensors\" --history-out \"$d/h.json\";
                        cmp \"$d/m.safetensors\" \"$2.safetensors\"; cmp \"$d/m.json\" \"$2.json\";
                        cmp \"$d/h.json\" \"$2-training.json\"; echo same"
                 sh $<TARGET_FILE:headlab> ${CMAKE_SOURCE_DIR}/site/pages/data/induction-seed0 ${_md}-shipped-induction)
set_tests_properties(cli.model.train_regenerates_shipped_induction_acceptance PROPERTIES PASS_REGULAR_EXPRESSION "passed 0.4 at step 800.*same\n$")
headlab_model_case(train_history_stdout "--history-out -: stdout holds the summary line.*exit=2"
                   train --task induction --seed 0 --steps 50 --out ${_md}-h.safetensors --history-out -)
headlab_model_case(train_history_over_model "--history-out .*-h2.json\" is the same file as --config-out .*exit=2"
                   train --task induction --seed 0 --steps 50 --out ${_md}-h2.safetensors --history-out ${_md}-h2.json)
headlab_model_case(bad_task "--task must be induction.*exit=2" train --task copy --seed 0 --out ${_md}.safetensors)
# Divergence is reported with its step and writes no model (a loss of 1e18 used to be "trained", exit 0).
headlab_model_case(train_diverges "model train: training diverged at step 1: a weight reached .* beyond the magnitude limit ±1e\\+06 \\(learning_rate 1e\\+08\\).exit=1"
                   train --task induction --seed 0 --steps 20 --lr 1e8 --weight-decay 0 --out ${_md}-diverged.safetensors)
# A run whose weights stay inside ±1e6 while its loss explodes (learning_rate 1e3 ended at a loss of
# 7.3e7, exit 0, the model written): divergence by the loss, exit 1, no file.
add_test(NAME cli.model.train_loss_diverges
         COMMAND sh -c "rm -f \"$2\".*; \"$1\" model train --task induction --seed 0 --steps 50 --batch 1 --lr 1e3 --weight-decay 0 --out \"$2.safetensors\" 2>&1; echo exit=$?; ls \"$2\".* 2>/dev/null || echo no file"
                 sh $<TARGET_FILE:headlab> ${_md}-loss-diverged)
set_tests_properties(cli.model.train_loss_diverges PROPERTIES PASS_REGULAR_EXPRESSION
  "model train: training diverged at step 50: the loss averaged [0-9.e+]+ over the last 16 steps, above 2 × 3.70[0-9]*, the larger of the first step's loss .* and the loss of the uniform prediction, ln 32 .*lower the learning rate.exit=1.no file")
headlab_model_case(bad_ablation "--ablation must be zero or mean.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --ablation half)
headlab_model_case(patching_needs_answer "--corrupted needs --answer and --wrong.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --corrupted "1 3")
# --answer and --wrong set the patching runs' logit difference: without --corrupted they were
# ignored silently; now a usage error naming both flags.
headlab_model_case(answer_without_corrupted "--answer applies only with --corrupted.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --answer 3)
headlab_model_case(wrong_without_corrupted "--wrong applies only with --corrupted.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --wrong 3)
# No steps, no model: the initial weights were written as a trained model with a loss of nan.
headlab_model_case(train_zero_steps "steps must lie in \\[1, 10000000\\], got 0.*usage:.*exit=2"
                   train --task induction --seed 0 --steps 0 --out ${_md}-zero.safetensors)
# The max-digit weights converted to the format, then inspected, run and analysed from the files.
add_test(NAME cli.model.max_digit_round_trip
         COMMAND sh -c "set -e; \"$1\" model convert-max-digit --weights \"$2\" --out \"$3.safetensors\";
                        \"$1\" model inspect --config \"$3.json\" --weights \"$3.safetensors\";
                        \"$1\" model analyze --config \"$3.json\" --weights \"$3.safetensors\" --prompt \"BOS 3 7 1 PAD PAD PAD SEP ANS\" --sequences 2 --circuits"
                 sh $<TARGET_FILE:headlab> ${CMAKE_SOURCE_DIR}/site/pages/data/max-digit-seed0.json ${_md})
set_tests_properties(cli.model.max_digit_round_trip PROPERTIES
  PASS_REGULAR_EXPRESSION "wrote the max-digit model.*\"normalization\":\"none\".*\"token_names\":\\[\"BOS\",\"3\",\"7\",\"1\",\"PAD\".*\"token\":7,.*\"circuits\":\\{\"qk\":")
# model run --ablate: the prompt's logits with heads ablated (what the ablation widget shows).
headlab_model_case(ablate_bad_head "--ablate: \"1x\" is not a layer.head pair.*exit=2"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --ablate "1x")
headlab_model_case(ablate_outside "head 5.0 is not in the model.*exit=1"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --ablate "5.0")
headlab_model_case(ablation_without_ablate "--ablation applies only with --ablate or --head-losses.*exit=2"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --ablation zero)
headlab_model_case(ablate_ok "\"tokens\":\\[1,2,3\\],\"logits\":\\[\\[.*exit=0"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2 3" --ablate "0.1 1.0" --ablation mean --sequences 4)
# model run --head-losses: the prompt's next-token loss with each head ablated (the ablation widget's
# loss chart), mean ablation over the author's --reference sequences; values against torch in
# tests/formats/prompt_ablation_parity_test.cpp.
headlab_model_case(head_losses_reference "\"head_losses\":\\{\"mode\":\"mean\",\"means\":\"reference\",\"sequences\":2,\"clean_loss\":[0-9.]+,\"loss\":\\[\\[.*exit=0"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "3 16 5 3" --head-losses --reference "1 2 3 4 5\\; 16 15 14")
headlab_model_case(head_losses_random "\"head_losses\":\\{\"mode\":\"zero\",\"means\":\"repeated random sequences\",\"sequences\":32,\"seed\":0,.*exit=0"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "3 16 5 3" --head-losses --ablation zero)
headlab_model_case(head_losses_reference_and_seed "--reference replaces the repeated random sequences.*exit=2"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "3 16" --head-losses --reference "1 2" --seed 3)
headlab_model_case(head_losses_bad_reference "sequence 1 of --reference: .*99.*exit=1"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "3 16" --head-losses --reference "1 2\\; 99")
headlab_model_case(head_losses_one_token "needs at least 2.*exit=1"
                   run --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "3" --head-losses)
# analyze --composition / --logit-lens / --head-svd: their sections, and their flags' bounds.
headlab_model_case(analyze_circuit_sections
                   "\"composition\":\\{\"heads\":\\[\"0.0\",\"0.1\",\"0.2\",\"1.0\",\"1.1\",\"1.2\"\\],\"q\":.*\"baseline\":\\{\"mean\":0\\.[0-9]+,\"std\":.*\"samples\":200,\"seed\":3\\}.*\"logit_lens\":\\{\"top\":2,\"answers\":\\[2,3,[0-9]+\\],.*\"head_svd\":\\{\"directions\":4,\"top\":2,\"heads\":\\[\\[\\{\"ov_singular_values\":.*exit=0"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2 3" --sequences 2 --seed 3 --composition --logit-lens --head-svd --top 2 --directions 4)
headlab_model_case(analyze_directions_without_svd "--directions applies only with --head-svd.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --directions 2)
headlab_model_case(analyze_top_without_section "--top applies only with --logit-lens or --head-svd.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --top 2)
headlab_model_case(analyze_directions_bound "--directions.*5.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2" --head-svd --directions 5)
# analyze --sequences 0: the prompt's own figures (DLA here), no repeated-sequence analyses (null);
# -1 is a usage error.
headlab_model_case(analyze_no_sequences "\"direct_logit_attribution\":\\{\"embed\":[-0-9.e]+,.*\"ablation\":null,\"induction\":null.*exit=0"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2 3" --sequences 0)
headlab_model_case(analyze_negative_sequences "--sequences.*exit=2"
                   analyze --config ${_data}/two_layer_ln_pos.json --weights ${_data}/two_layer_ln_pos.safetensors --prompt "1 2 3" --sequences -1)
