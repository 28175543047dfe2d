'use strict';
// Progressive enhancement only: every page works without this file. Copy buttons appear when the clipboard can be used.
(function () {

    function copy(button) {
        var target = document.getElementById(button.getAttribute('data-copy'));
        var status = document.getElementById('copy-status');
        var say = function (text) {
            if (status) {
                status.textContent = text;
            }
        };

        navigator.clipboard.writeText(target.value || target.textContent).then(function () {
            say('Copied to the clipboard.');
        }, function () {
            target.focus();
            target.select();
            say('Could not copy: the token is selected, press Ctrl+C (or Cmd+C) to copy it.');
        });
    }

    document.addEventListener('DOMContentLoaded', function () {
        if (navigator.clipboard && window.isSecureContext) {
            document.querySelectorAll('button[data-copy]').forEach(function (button) {
                button.hidden = false;
                button.addEventListener('click', function () {
                    copy(button);
                });
            });
        }

        document.querySelectorAll('[data-select-on-focus]').forEach(function (input) {
            input.addEventListener('focus', function () {
                input.select();
            });
        });
    });
})();
