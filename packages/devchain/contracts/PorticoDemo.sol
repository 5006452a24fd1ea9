// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// The contract `portico dev` deploys so every gateway method has data to show: logs, a stored
/// value, and one function for each kind of revert (reason string, panic, custom error).
contract PorticoDemo {
    event Stored(address indexed from, uint256 value);

    error Unauthorized(address caller);

    uint256 public value;

    constructor(uint256 initial) {
        value = initial;
        emit Stored(msg.sender, initial);
    }

    function store(uint256 newValue) external {
        value = newValue;
        emit Stored(msg.sender, newValue);
    }

    /// Reverts unless newValue is non-zero: sent with a fixed gas limit it makes a failed transaction.
    function storeNonZero(uint256 newValue) external {
        require(newValue != 0, "PorticoDemo: value must be non-zero");
        value = newValue;
        emit Stored(msg.sender, newValue);
    }

    function failWithReason() external pure {
        revert("PorticoDemo: deliberate revert");
    }

    function failWithPanic(uint256 a) external pure returns (uint256) {
        return a - (a + 1);
    }

    function failWithCustomError() external view {
        revert Unauthorized(msg.sender);
    }
}
