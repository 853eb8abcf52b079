// Registers <headlab-choice-quiz> (guarded: a page may load the bundle twice).
import { HeadlabChoiceQuiz } from './headlab-choice-quiz.js';

if (!customElements.get('headlab-choice-quiz')) customElements.define('headlab-choice-quiz', HeadlabChoiceQuiz);
