// Registers <headlab-choice-quiz> in a browser (nothing in Node or server rendering; see define.ts)
// and exports its class, for authors who register it under their own tag name.
// The package entry point `headlab/choice-quiz`.
import { HeadlabChoiceQuiz } from './headlab-choice-quiz.js';
import { defineElement } from './define.js';

export { HeadlabChoiceQuiz };
defineElement('headlab-choice-quiz', HeadlabChoiceQuiz);
