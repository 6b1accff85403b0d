// The account console's only script (no framework, no inline script: the CSP allows 'self' only).
// Everything works without it; it adds copy buttons, the sign-in page's automatic submit and the
// refresh of a running replay's page.
'use strict';

document.addEventListener('DOMContentLoaded', function () {
  // Sign-in: take the link's token out of the address bar and history, then exchange it.
  var signIn = document.querySelector('form[data-autosubmit]');
  if (signIn) {
    history.replaceState(null, '', location.pathname);
    signIn.submit();
  }

  // Copy buttons: data-copy names the element whose text is copied.
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var status = button.parentElement.querySelector('[data-copy-status]');
      var say = function (text) {
        if (status) status.textContent = text;
      };
      if (!source) return;
      navigator.clipboard.writeText(source.textContent.trim()).then(
        function () {
          say('Copied.');
        },
        function () {
          var range = document.createRange();
          range.selectNodeContents(source);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          say('Selected: press Ctrl+C (or Cmd+C) to copy.');
        },
      );
    });
  });

  // A running replay's page reloads itself until the replay ends.
  var refresh = document.querySelector('[data-refresh]');
  if (refresh) {
    setTimeout(
      function () {
        location.reload();
      },
      Number(refresh.getAttribute('data-refresh')) * 1000,
    );
  }
});
