// The experiment form: the prompt follows the bank's language. Each bank option and each
// default prompt option carries data-language (set by the server); choosing a bank picks the
// default prompt in its language, or the page's language for a bank with none. Once the user
// has chosen a prompt themselves, it is theirs and no longer follows.
(function () {
  "use strict";
  function follow(bankSelect) {
    const prompt = document.getElementById(bankSelect.dataset.promptFollows);
    if (!prompt || prompt.dataset.chosen) return;
    const option = bankSelect.options[bankSelect.selectedIndex];
    const language = (option && option.dataset.language) || document.documentElement.lang || "en";
    const match = prompt.querySelector('option[data-language="' + language + '"]');
    if (match) prompt.value = match.value;
  }
  document.addEventListener("change", function (event) {
    const target = event.target;
    if (target.matches && target.matches("select[data-prompt-follows]")) follow(target);
    else if (target.id && document.querySelector('select[data-prompt-follows="' + target.id + '"]')) {
      target.dataset.chosen = "1";
    }
  });
})();
